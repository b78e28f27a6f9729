"""Every command that reads or writes a file a user gives or a project holds, tried as an
attacker plants it (issue 22): a symbolic link at the last part and at a middle part of the
path, out of the command's folder and inside it, a FIFO, a device, and (for private files)
a hard link to a file outside the project. Each asserts the finding and that nothing outside
was read (its text appears in no output) or changed. acap serve, acap init and acap keys are
tried in their own modules (tests/unit/site, builder, keys).

The folder of a path given on the command line is the folder acap runs in (the tests run in
the project folder); the files operator.yaml names lie in the project folder.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import Result

from acap.agent import BuiltCard
from acap.errors import AcapError
from support.cards import CARD, JWKS, acap
from support.files import FORMS, REFUSED, SECRET, Outside, ends, outside, plant
from support.paths import CASES, EXAMPLE

REPLY = (CASES / "reply" / "valid" / "a2-information-referred.json").read_bytes()
PROMPTS = b"service-pricing:\n  - What does a cremation cost?\n"
PRIVATE = b"service-pricing:\n  - \"2,450 pounds for a cremation\"\n"
#: A probe that never reaches the network: a private address, refused unless allowed.
PROBE_URL = "https://127.0.0.1:9/"


@dataclass
class Project:
    folder: Path
    out: Outside

    @property
    def card(self) -> str:
        return f"site/{CARD}"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """The example project, built (card, JWKS, policy), and acap run in its folder."""
    folder = tmp_path / "project"
    folder.mkdir()
    shutil.copyfile(EXAMPLE, folder / "operator.yaml")
    monkeypatch.chdir(folder)
    res = acap("build", "--no-spec-site", "--no-pages")
    assert res.exit_code == 0, res.stderr
    return Project(folder, outside(tmp_path))


def _run(*args: str) -> Result:
    return ends(lambda: acap(*args))


def _said(res: Result) -> str:
    return res.stdout + res.stderr


def _check(res: Result, p: Project, form: str, rule: str, private: bool = False) -> None:
    """A refused form: the rule at the file, its text unread; a form that stays inside:
    read as any file (no refusal)."""
    said = _said(res)
    assert SECRET.decode() not in said
    assert p.out.unchanged()
    refused = form in REFUSED and (private or form != "hard-link-out")
    if refused:
        assert res.exit_code == 1, said
        assert f"[{rule}]" in said, said
        reason = {"link-last-out": "leads out of", "link-middle-out": "leads out of",
                  "fifo": "a named pipe (FIFO)", "device": "device",
                  "hard-link-out": "other names (hard links)"}[form]
        if form == "device" and "leads out of" in said:
            reason = "leads out of"  # /dev/zero behind a link, where mknod is not allowed
        assert reason in said, said
    else:
        assert f"[{rule}]" not in said, said


#: ``name: (the path planted, its content, the command, the rule of a refusal, private)``.
READS: dict[str, tuple[str, bytes | None, list[str], str, bool]] = {
    "check a card": ("cards/card.json", None, ["check", "cards/card.json"], "CARD-READ", False),
    "verify a card": ("cards/card.json", None, ["verify", "cards/card.json"], "CARD-READ",
                      False),
    "check an operator file": ("ops/operator.yaml", EXAMPLE.read_bytes(),
                               ["check", "ops/operator.yaml"], "FILE", False),
    "check-reply's reply": ("replies/reply.json", REPLY,
                            ["check-reply", "replies/reply.json", "--card", f"site/{CARD}",
                             "--activated", "--skill", "service-pricing"], "REPLY-READ", False),
    "check-reply's card": ("cards/card.json", None,
                           ["check-reply", str(CASES / "reply" / "valid" /
                                               "a2-information-referred.json"),
                            "--card", "cards/card.json"], "CARD-READ", False),
    "check-reply --operator": ("ops/operator.yaml", EXAMPLE.read_bytes(),
                               ["check-reply", str(CASES / "reply" / "valid" /
                                                   "a2-information-referred.json"),
                                "--card", f"site/{CARD}", "--operator", "ops/operator.yaml"],
                               "FILE", False),
    "probe --prompts": ("probe/prompts.yaml", PROMPTS,
                        ["probe", PROBE_URL, "--prompts", "probe/prompts.yaml"], "FILE", False),
    "probe --private-values": ("probe/private.yaml", PRIVATE,
                               ["probe", PROBE_URL, "--private-values", "probe/private.yaml"],
                               "PRIVATE-VALUES", True),
}


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("case", list(READS))
def test_a_file_named_on_the_command_line_is_read_only_inside_its_folder(
        project: Project, case: str, form: str) -> None:
    rel, content, args, rule, private = READS[case]
    plant(project.folder / rel, form, project.out,
          content if content is not None else (project.folder / project.card).read_bytes())
    _check(_run(*args), project, form, rule, private)


@pytest.mark.parametrize("form", [f for f in FORMS if f != "hard-link-out"])
def test_verify_reads_a_given_jwks_only_inside_its_folder(project: Project, form: str) -> None:
    """A public JWKS: another name of it is no one's secret (hard links are judged for
    key and private files)."""
    plant(project.folder / "given" / "jwks.json", form, project.out,
          (project.folder / "site" / JWKS).read_bytes())
    res = _run("verify", project.card, "--jwks", "given/jwks.json")
    assert SECRET.decode() not in _said(res) and project.out.unchanged()
    if form in REFUSED:
        assert res.exit_code == 1
        assert "cannot read the JWKS given/jwks.json: " in _said(res)
    else:
        assert res.exit_code == 0, _said(res)


@pytest.mark.parametrize("form", [f for f in FORMS if not f.startswith("link-middle")])
def test_build_reads_operator_private_yaml_only_inside_the_project(project: Project,
                                                                   form: str) -> None:
    """operator.private.yaml lies beside operator.yaml, at the top of the project: it has
    no middle part inside it. A hard link is refused too: it may be another's file."""
    plant(project.folder / "operator.private.yaml", form, project.out, PRIVATE)
    res = _run("build", "--no-spec-site", "--no-pages")
    _check(res, project, form, "PRIVATE-VALUES", private=True)


@pytest.mark.parametrize("form", FORMS)
def test_build_reads_a_template_only_inside_the_templates_folder(project: Project,
                                                                 form: str) -> None:
    before = (project.folder / "site" / "ask.example.com").exists()
    plant(project.folder / "templates" / "footer.html", form, project.out,
          b"<footer>our own footer</footer>\n")
    res = _run("build", "--no-spec-site")
    said = _said(res)
    assert SECRET.decode() not in said and project.out.unchanged()
    if form in REFUSED and form != "hard-link-out":
        assert res.exit_code == 1 and "[PAGE-TEMPLATE]" in said, said
        assert (project.folder / "site" / "ask.example.com").exists() == before
        return
    assert res.exit_code == 0, said
    page = (project.folder / "site" / "ask.example.com" / "talk" / "index.html").read_bytes()
    assert b"our own footer" in page


def test_build_reads_no_operator_file_that_is_a_link_out(project: Project) -> None:
    (project.folder / "linked.yaml").symlink_to(project.out.add("op.yaml",
                                                                EXAMPLE.read_bytes()))
    res = _run("build", "-c", "linked.yaml", "--no-spec-site", "--no-pages",
               "--site-dir", "other-site")
    assert res.exit_code == 1 and "[FILE]" in _said(res)
    assert "cannot read linked.yaml: it is a link that leads out of its folder" in _said(res)
    assert not (project.folder / "other-site").exists() and project.out.unchanged()


@pytest.mark.parametrize("form", FORMS)
def test_words_writes_through_no_link_and_over_no_file(project: Project, form: str) -> None:
    path = project.folder / "templates" / "words" / "de.yaml"
    plant(path, form, project.out, b"# mine\n")
    inside = {p: p.read_bytes() for p in project.folder.rglob("real-*") if p.is_file()}
    res = _run("words", "de")
    assert res.exit_code == 1, _said(res)
    assert project.out.unchanged()
    assert {p: p.read_bytes() for p in inside} == inside
    if form.startswith("link-middle"):
        assert "templates/words is a symbolic link" in res.stderr and "[FILE-WRITE]" in \
            res.stderr
    else:
        assert "exists already; acap leaves it as it is" in res.stderr


@pytest.mark.parametrize("form", [f for f in FORMS if f != "hard-link-out"])
def test_the_agents_card_is_read_only_inside_its_folder(project: Project, form: str) -> None:
    """What the agent serves on its card route (:class:`acap.agent.BuiltCard`)."""
    card = project.folder / "served" / "agent-card.json"
    plant(card, form, project.out, (project.folder / project.card).read_bytes())
    policy = project.folder / ".acap" / "operator.agent-policy.json"
    load = lambda: BuiltCard.from_files("served/agent-card.json",  # noqa: E731
                                        f"site/{JWKS}", policy)
    if form in REFUSED:
        with pytest.raises(AcapError) as caught:
            ends(load)
        assert "the card served/agent-card.json is not read: " in str(caught.value)
        assert SECRET.decode() not in str(caught.value)
    else:
        assert ends(load).card_bytes == (project.folder / project.card).read_bytes()
    assert project.out.unchanged()
