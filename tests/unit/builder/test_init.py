"""acap init: a new project that builds as it is, never overwriting a file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from acap.builder import ACTION_PLACEHOLDER, init_project
from acap.builder import _init_project as ip
from acap.builder._init_project import FILES
from acap.card import verify_card
from acap.cli import cli, report_text
from support.languages import WORDS
from support.publishing import git, snapshot

PROJECT_FILES = sorted(FILES.values())


def test_init_then_build_succeeds_with_no_other_step(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "new-operator"
    runner = CliRunner()
    res = runner.invoke(cli, ["init", str(folder)])
    assert res.exit_code == 0, res.output
    assert sorted(snapshot(folder)) == PROJECT_FILES
    monkeypatch.chdir(folder)
    built = runner.invoke(cli, ["build"])
    assert built.exit_code == 0, built.output
    assert "error" not in built.stderr and "warning" not in built.stderr
    card = folder / "site/example.org/.well-known/agent-card.json"
    checked = verify_card(str(card))
    assert checked.ok, report_text(checked.report)
    assert (folder / ".acap/signing-key.pem").is_file()


def test_init_never_overwrites(tmp_path: Path) -> None:
    (tmp_path / "operator.yaml").write_text("# mine\n", encoding="utf-8")
    first = init_project(tmp_path)
    assert first.skipped == [(tmp_path / "operator.yaml").absolute()]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in first.created) == \
        [f for f in PROJECT_FILES if f != "operator.yaml"]
    assert (tmp_path / "operator.yaml").read_text("utf-8") == "# mine\n"
    (tmp_path / ".gitignore").write_text("node_modules/\n", encoding="utf-8")
    before = snapshot(tmp_path)
    res = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert res.exit_code == 0
    after = snapshot(tmp_path)
    gitignore = after.pop(".gitignore")  # the lines it lacked appended (issue 12)
    assert after == {k: v for k, v in before.items() if k != ".gitignore"}
    assert gitignore.startswith(before[".gitignore"]) and b"/.acap/\n" in gitignore
    assert "exists, left as it is: .gitignore" in res.stderr
    assert "/site/  /.acap/" in res.stderr
    assert "  *.private.yaml" in res.stderr  # what is given on request, too
    again = CliRunner().invoke(cli, ["init", str(tmp_path)])
    assert snapshot(tmp_path)[".gitignore"] == gitignore
    assert "nothing written" in again.stderr


def test_gitignore_keeps_the_key_and_site_out_of_git(tmp_path: Path) -> None:
    init_project(tmp_path)
    git("init", "-q", cwd=tmp_path)
    for path in ("site/example.org/.well-known/agent-card.json", ".acap/signing-key.pem",
                 "other-key.pem", "_site/index.html", "._site.acap-published.json",
                 "operator.private.yaml", "ops/funeral/operator.private.yaml",
                 "ops/chapel.private.yaml"):
        assert git("check-ignore", path, cwd=tmp_path).strip() == path
    assert git("check-ignore", "operator.yaml", cwd=tmp_path, check=False) == ""


def _workflow(folder: Path) -> dict[Any, Any]:
    data = yaml.safe_load((folder / ".github/workflows/pages.yml").read_text("utf-8"))
    assert isinstance(data, dict)
    return data


def _steps(data: dict[Any, Any]) -> list[dict[str, Any]]:
    return [s for job in data["jobs"].values() for s in job["steps"]]


def test_the_workflow_uses_the_acap_action_and_current_action_majors(tmp_path: Path) -> None:
    """Issue 15: a few lines, current majors (checkout v4 and setup-python v5 are
    deprecated), the key from the secret, and the deploy job after the build."""
    init_project(tmp_path)
    data = _workflow(tmp_path)
    # PyYAML reads the key `on` as YAML 1.1's true; GitHub reads it as "on".
    triggers = data.get("on", data.get(True))
    assert triggers["push"]["branches"] == ["main"]
    # least privilege: nothing for the workflow, each job what it needs
    assert data["permissions"] == {}
    assert data["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert data["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    build, deploy = data["jobs"]["build"]["steps"], data["jobs"]["deploy"]["steps"]
    assert [s["uses"] for s in build] == [
        "actions/checkout@v7",
        "SET-ACAP-REPOSITORY-AND-COMMIT-HERE",
    ]
    assert build[0]["with"] == {"persist-credentials": False}
    assert build[1]["with"] == {"signing-key": "${{ secrets.ACAP_SIGNING_KEY }}"}
    assert data["jobs"]["deploy"]["needs"] == "build"
    assert [s["uses"] for s in deploy] == ["actions/deploy-pages@v5"]
    # the deploy job runs only when the build says so (not on acap init's placeholders):
    # the action's output, the build job's output, the deploy job's condition
    assert build[1]["id"] == "acap"
    assert data["jobs"]["build"]["outputs"] == {"publish": "${{ steps.acap.outputs.publish }}"}
    assert data["jobs"]["deploy"]["if"] == "needs.build.outputs.publish == 'true'"


def test_the_workflow_says_what_it_deploys_and_what_to_do_for_the_others(
        tmp_path: Path) -> None:
    init_project(tmp_path)
    text = (tmp_path / ".github/workflows/pages.yml").read_text("utf-8")
    said = " ".join(line.lstrip("# ").strip() for line in text.splitlines()
                    if line.startswith("#"))
    assert "deploys the folder of the card's host only" in said
    assert "acap publish --host HOST --sftp URL" in said
    # it says it never replaces a website, and what it does instead
    assert "It never replaces your website: if the card's host would have no home page" in said
    assert "the run is green, deploys nothing, and its warning says how to go on" in said


def test_the_workflow_names_the_commit_acap_was_installed_from(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """PEP 610 direct_url.json of a git install from GitHub becomes the action's ``uses:``,
    pinned to the full commit; a branch, another host or an editable install does not."""
    from importlib import metadata

    from acap.builder import _init_project as ip

    commit = "0123abc" + "0" * 33
    found: dict[str, str] = {}

    class Dist:
        def read_text(self, name: str) -> str:
            assert name == "direct_url.json"
            return found["text"]

    monkeypatch.setattr(metadata, "distribution", lambda name: Dist())
    for url, vcs, ref in [
        ("https://github.com/acme/acap.git", {"vcs": "git", "commit_id": commit},
         f"acme/acap@{commit}"),
        ("https://github.com/acme/acap", {"vcs": "git", "requested_revision": "main"}, ""),
        ("https://gitlab.com/acme/acap", {"vcs": "git", "commit_id": commit}, ""),
        ("https://github.com/acme/acap\n- uses: evil/x@1", {"vcs": "git", "commit_id": commit},
         ""),
    ]:
        found["text"] = json.dumps({"url": url, "vcs_info": vcs})
        assert ip.action_ref() == ref, url
    found["text"] = json.dumps({"url": "https://github.com/acme/acap",
                                "vcs_info": {"vcs": "git", "commit_id": commit}})
    text = ip.template_text("github/workflows/pages.yml")
    [step] = [s for s in yaml.safe_load(text)["jobs"]["build"]["steps"]
              if "signing-key" in s.get("with", {})]
    assert step["uses"] == f"acme/acap@{commit}"
    assert "at the commit acap init was run from" in text and "OWNER/acap" not in text


def test_init_says_to_replace_the_placeholder_when_it_cannot_know(tmp_path: Path) -> None:
    from acap.builder import action_ref

    assert action_ref() == ""  # the tests run an editable install
    res = CliRunner().invoke(cli, ["init", str(tmp_path / "proj")])
    assert res.exit_code == 0, res.output
    assert ("note: in .github/workflows/pages.yml, replace SET-ACAP-REPOSITORY-AND-COMMIT-HERE "
            "with the GitHub "
            "repository acap comes from and the full commit you trust") in res.stderr
    text = (tmp_path / "proj/.github/workflows/pages.yml").read_text("utf-8")
    assert "replace SET-ACAP-REPOSITORY-AND-COMMIT-HERE with the" in text
    # GitHub's form for an action is OWNER/REPOSITORY@REF: this one is refused, not run
    assert "/" not in ACTION_PLACEHOLDER and "@" not in ACTION_PLACEHOLDER


def test_the_first_build_with_your_own_hosts_replaces_the_placeholder_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Trial 5: every new operator's first real build was refused as "the build of another
    card" until --force. The placeholder card is acap init's own; another card still is
    refused."""
    folder = tmp_path / "p"
    runner = CliRunner()
    assert runner.invoke(cli, ["init", str(folder)]).exit_code == 0
    monkeypatch.chdir(folder)
    assert runner.invoke(cli, ["build"]).exit_code == 0
    op = folder / "operator.yaml"
    op.write_text(op.read_text(encoding="utf-8").replace("example.org", "dental.example"),
                  encoding="utf-8")
    mine = runner.invoke(cli, ["build"])
    assert mine.exit_code == 0, mine.stderr
    assert (folder / "site/dental.example/.well-known/agent-card.json").is_file()
    assert not (folder / "site/example.org").exists()
    op.write_text(op.read_text(encoding="utf-8").replace("dental.example", "other.example"),
                  encoding="utf-8")
    other = runner.invoke(cli, ["build"])
    assert other.exit_code == 1
    assert "holds the build of another card, https://dental.example/" in other.stderr


# -- acap init --language (issue 23) -----------------------------------------------------------

def _data_shape(node: Any) -> Any:
    """The structure of YAML data with every text replaced by a marker: what must be the
    same in every language (keys, ids, URLs, kinds, numbers, true/false, list lengths)."""
    if isinstance(node, dict):
        return {k: (v if k in ("id", "kind", "binding", "protocolVersion", "version",
                               "keyFile", "cname", "website", "url", "personEntry",
                               "email") else _data_shape(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_data_shape(v) for v in node]
    return "TEXT" if isinstance(node, str) else node


def test_init_speaks_every_language_acap_has_page_words_for() -> None:
    from acap.builder import init_languages
    from support.languages import shipped_languages

    assert init_languages() == shipped_languages()  # en first, then the same tags


@pytest.mark.parametrize("tag", ["ca", "ca-ES-valencia", "de", "de-CH", "es", "fr", "it",
                                 "nl", "pt", "pt-BR", "pt-PT"])
def test_init_language_writes_operator_yaml_in_that_language(tmp_path: Path, tag: str) -> None:
    """The comments and placeholders are the operator's language, the page is in it, and
    the project builds with no finding at all: the same structure as the English one."""
    from acap.builder import BuildOptions, build, init_language
    from support.pages import page_text

    res = CliRunner().invoke(cli, ["init", str(tmp_path), "--language", tag])
    assert res.exit_code == 0, res.output
    text = (tmp_path / "operator.yaml").read_text(encoding="utf-8")
    english = ip.template_text("operator.yaml")
    comments = {line.strip() for line in text.splitlines() if line.lstrip().startswith("#")}
    english_comments = {line.strip() for line in english.splitlines()
                        if line.lstrip().startswith("#") and len(line.strip()) > 30
                        and "yaml-language-server" not in line and "acap " not in line
                        and "http" not in line and ":" not in line.split("#", 2)[-1][:12]}
    assert not comments & english_comments, sorted(comments & english_comments)
    data, reference = yaml.safe_load(text), yaml.safe_load(english)
    assert data["page"] == {"languages": [tag]} and data["contact"]["languages"] == [tag]
    del data["page"]
    reference["contact"]["languages"] = [tag]
    assert _data_shape(data) == _data_shape(reference)
    assert data["operator"]["name"] != reference["operator"]["name"]  # placeholder translated
    result = build(BuildOptions(config=tmp_path / "operator.yaml", spec_site=False,
                                write=False))
    assert result.report.findings == [], report_text(result.report)
    page = page_text(result, "example.org/ask/index.html")
    assert f'<html lang="{tag}"' in page
    words = yaml.safe_load((WORDS / f"{init_language(tag)}.yaml").read_text("utf-8"))
    assert words["howHeading"].replace("'", "&#39;") in page


def test_init_language_acap_has_no_words_for_is_refused_and_writes_nothing(
        tmp_path: Path) -> None:
    res = CliRunner().invoke(cli, ["init", str(tmp_path / "p"), "--language", "cy"])
    assert res.exit_code == 2
    assert "acap has no operator.yaml in 'cy'" in res.stderr
    assert "acap words cy" in res.stderr
    assert not (tmp_path / "p").exists()


def test_english_stays_the_default_and_keeps_its_page_commented(tmp_path: Path) -> None:
    assert CliRunner().invoke(cli, ["init", str(tmp_path / "a")]).exit_code == 0
    assert CliRunner().invoke(cli, ["init", str(tmp_path / "b"), "-l", "en-GB"]).exit_code == 0
    a = (tmp_path / "a" / "operator.yaml").read_text(encoding="utf-8")
    b = (tmp_path / "b" / "operator.yaml").read_text(encoding="utf-8")
    assert a == b and "# page:\n#   languages: [en]" in a
