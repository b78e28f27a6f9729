"""Key files are read within the project folder and written through no link (issue 22): every
command that reads or writes a key or the previous keys (acap build, acap keys list / new /
rotate / retire), tried with a link at the last part and at a middle part (out of the
project and inside it), a FIFO, a device and a hard link to a key outside the project. Each
asserts the finding and that nothing outside was read (its key never signs) or changed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from support.cards import CARD, acap, new_private, pem, set_key_file, tree
from support.files import FORMS, REFUSED, SECRET, Outside, ends, outside, plant

KEY = ".acap/signing-key.pem"
PREVIOUS = "keys/previous-keys.json"


@pytest.fixture
def project(example: Path, tmp_path: Path) -> tuple[Path, Outside]:
    """The example project with its key, and the folder outside it."""
    return example, outside(tmp_path)


def _run(*args: str) -> Result:
    """``acap ARGS``, which must end: a FIFO or a device never holds it."""
    return ends(lambda: acap(*args))


def _plant_key(example: Path, form: str, out: Outside) -> bytes:
    """The key file as ``form``; returns the key's PEM (inside, or the outside copy's)."""
    key = pem(new_private("ES256"))
    plant(example.parent / KEY, form, out, key)
    return key


def _shown(res: Result) -> str:
    return res.stdout + res.stderr


@pytest.mark.parametrize("form", FORMS)
def test_build_reads_the_key_only_inside_the_project(project: tuple[Path, Outside],
                                                     form: str) -> None:
    example, out = project
    _plant_key(example, form, out)
    res = _run("build", "-c", str(example), "--no-spec-site", "--no-pages")
    assert SECRET.decode() not in _shown(res)
    assert out.unchanged()
    if form == "link-last-in":  # a link that stays in the project is followed
        assert res.exit_code == 0, res.stderr
        assert (example.parent / "site" / CARD).is_file()
        return
    if form == "link-middle-in":  # read through .acap, but the build writes the agent
        assert res.exit_code == 1  # policy there: nothing is written through a link
        assert "the agent policy .acap/operator.agent-policy.json would not be written: " \
            ".acap is a symbolic link" in res.stderr and "[FILE-WRITE]" in res.stderr
        assert not (example.parent / "site").exists()
        return
    assert res.exit_code == 1
    assert f"{KEY}" in res.stderr and "[KEY-FILE]" in res.stderr, res.stderr
    reason = {"link-last-out": "leads out of the project folder",
              "link-middle-out": ".acap is a symbolic link that leads out of the project folder",
              "fifo": "a named pipe (FIFO), not a regular file",
              "hard-link-out": "other names (hard links)"}.get(form, "")
    assert reason in res.stderr
    assert not (example.parent / "site").exists()  # nothing signed with it


@pytest.mark.parametrize("form", FORMS)
def test_keys_list_reads_the_key_only_inside_the_project(project: tuple[Path, Outside],
                                                         form: str) -> None:
    example, out = project
    _plant_key(example, form, out)
    res = _run("keys", "list", "-c", str(example))
    assert SECRET.decode() not in _shown(res) and out.unchanged()
    if form in REFUSED:
        assert "[KEY-FILE]" in res.stderr and "current:" not in res.stdout
    else:
        assert res.stdout.startswith("current:  kid chapel-1, ES256")


@pytest.mark.parametrize("form", FORMS)
def test_keys_rotate_reads_no_key_outside_and_writes_through_no_link(
        project: tuple[Path, Outside], form: str) -> None:
    example, out = project
    _plant_key(example, form, out)
    before = tree(example.parent)
    res = _run("keys", "rotate", "-c", str(example))
    assert res.exit_code == 1, res.output
    assert SECRET.decode() not in _shown(res)
    assert out.unchanged()
    assert tree(example.parent) == before  # nothing in the project changed either
    if form in REFUSED:
        assert "acap does not use it" in res.stderr
    else:  # read through a link inside, but the new key is not written through it
        assert "[FILE-WRITE]" in res.stderr and "nothing was written" in res.stderr
        assert "is a symbolic link" in res.stderr


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("given", [False, True])
def test_keys_new_writes_no_key_through_a_link_or_over_a_file(
        project: tuple[Path, Outside], form: str, given: bool,
        monkeypatch: pytest.MonkeyPatch) -> None:
    example, out = project
    _plant_key(example, form, out)
    monkeypatch.chdir(example.parent)
    before = tree(example.parent)
    res = _run("keys", "new", *(["--out", KEY] if given else ["-c", "operator.yaml"]))
    assert res.exit_code == 1, res.output
    assert out.unchanged() and tree(example.parent) == before
    if form == "link-middle-out" or form == "link-middle-in":
        assert ".acap is a symbolic link" in res.stderr and "[FILE-WRITE]" in res.stderr
    elif form.startswith("link"):
        assert f"error: {KEY} is a symbolic link; acap writes no key through a link" in \
            res.stderr
    else:
        assert "acap never overwrites a key" in res.stderr


def test_keys_new_writes_nothing_under_a_link_that_leads_nowhere(
        example: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = outside(tmp_path)
    monkeypatch.chdir(example.parent)
    (example.parent / "secrets").symlink_to(out.folder / "made")
    res = _run("keys", "new", "--out", "secrets/k.pem")
    assert res.exit_code == 1 and "[FILE-WRITE]" in res.stderr
    assert not (out.folder / "made").exists()


@pytest.mark.parametrize("form", FORMS)
def test_the_previous_keys_are_read_inside_and_rewritten_through_no_link(
        example: Path, tmp_path: Path, form: str) -> None:
    """acap keys retire rewrites signing.previousKeys; acap build reads it."""
    set_key_file(example, new_private("ES256"))
    out = outside(tmp_path)
    old = json.loads(json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "chapel-0",
                                           "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]}))
    plant(example.parent / PREVIOUS, form, out, json.dumps(old).encode())
    before = tree(example.parent)
    retired = _run("keys", "retire", "chapel-0", "-c", str(example))
    assert out.unchanged() and SECRET.decode() not in _shown(retired)
    assert retired.exit_code == 1 and tree(example.parent) == before
    assert ("[FILE-WRITE]" in retired.stderr) == (form not in REFUSED)
    built = _run("build", "-c", str(example), "--no-spec-site", "--no-pages")
    assert out.unchanged() and SECRET.decode() not in _shown(built)
    if form in REFUSED:
        assert built.exit_code == 1 and "[KEY-FILE]" in built.stderr
        return
    assert built.exit_code == 0, built.stderr
    jwks: dict[str, Any] = json.loads((example.parent / "site" / "example.com" /
                                       ".well-known" / "jwks.json").read_bytes())
    assert "chapel-0" in [k["kid"] for k in jwks["keys"]]
