"""acap init: a new project that builds as it is, never overwriting a file."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner

from acap.builder import init_project
from acap.builder._init_project import FILES
from acap.card import verify_card
from acap.cli import cli, report_text
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


def test_workflow_is_valid_yaml_keeping_the_hidden_well_known_folder(tmp_path: Path) -> None:
    init_project(tmp_path)
    data = _workflow(tmp_path)
    # PyYAML reads the key `on` as YAML 1.1's true; GitHub reads it as "on".
    triggers = data.get("on", data.get(True))
    assert triggers["push"]["branches"] == ["main"]
    assert data["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    steps = _steps(data)
    upload = [s for s in steps if str(s.get("uses", "")).startswith(
        "actions/upload-pages-artifact@")]
    assert len(upload) == 1
    # include-hidden-files arrived in upload-pages-artifact v5; v4 drops dot folders.
    assert upload[0]["uses"] == "actions/upload-pages-artifact@v5"
    assert upload[0]["with"]["include-hidden-files"] is True
    build = next(s for s in steps if "acap build" in str(s.get("run", "")))
    assert build["env"]["ACAP_SIGNING_KEY"] == "${{ secrets.ACAP_SIGNING_KEY }}"
    publish = [shlex.split(line) for line in build["run"].splitlines()
               if line.strip().startswith("acap publish")]
    assert publish == [["acap", "publish", "--dir", upload[0]["with"]["path"]]]
    assert data["jobs"]["deploy"]["needs"] == "build"
    assert data["jobs"]["deploy"]["steps"][0]["uses"].startswith("actions/deploy-pages@")
    install = next(s for s in steps if "pip install" in str(s.get("run", "")))
    # Never a bare `pip install acap` (not on PyPI: anyone could take the name).
    assert 'python -m pip install "$ACAP_PIP_SPEC"' in install["run"]
    assert install["env"]["ACAP_PIP_SPEC"].startswith("${{ vars.ACAP_PIP_SPEC || '")
    assert "@ACAP_PIP_SPEC@" not in install["env"]["ACAP_PIP_SPEC"]


def test_the_workflow_installs_acap_from_the_git_commit_it_came_from(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """PEP 610 direct_url.json of a git install becomes the workflow's pinned pip spec."""
    from importlib import metadata

    from acap.builder import _init_project as ip

    class Dist:
        def read_text(self, name: str) -> str:
            assert name == "direct_url.json"
            return ('{"url": "https://github.com/acme/acap", "vcs_info": '
                    '{"vcs": "git", "commit_id": "0123abc"}}')

    monkeypatch.setattr(metadata, "distribution", lambda name: Dist())
    assert ip.pip_spec() == "acap @ git+https://github.com/acme/acap@0123abc"
    text = ip.template_text("github/workflows/pages.yml")
    assert "vars.ACAP_PIP_SPEC || 'acap @ git+https://github.com/acme/acap@0123abc'" in text


def test_the_workflows_acap_commands_work_with_the_key_from_the_secret(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run the workflow's own `acap` lines, key in ACAP_SIGNING_KEY as the secret gives it."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    init_project(tmp_path)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("ACAP_SIGNING_KEY", pem)
    build = next(s for s in _steps(_workflow(tmp_path)) if "acap build" in str(s.get("run", "")))
    commands = [shlex.split(line) for line in build["run"].splitlines()
                if line.strip().startswith("acap ")]
    assert [c[:2] for c in commands] == [["acap", "build"], ["acap", "publish"]]
    runner = CliRunner()
    for c in commands:
        res = runner.invoke(cli, c[1:])
        assert res.exit_code == 0, f"{c}: {res.output}"
    out = snapshot(tmp_path / "_site")
    assert {".well-known/agent-card.json", ".well-known/jwks.json"} <= set(out)
    # the secret signed; no key was made (.acap/ holds the agent's policy alone)
    assert [p.name for p in (tmp_path / ".acap").iterdir()] == ["operator.agent-policy.json"]
    assert out == snapshot(tmp_path / "site/example.org")
    assert verify_card(str(tmp_path / "site/example.org/.well-known/agent-card.json")).ok


def _install_step(text: str) -> tuple[list[str], dict[str, Any]]:
    """The comment lines above the install step's ``env:``, and the step itself."""
    lines = text.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.strip() == "- name: Install acap")
    comment = []
    for ln in lines[start + 1:]:
        if not ln.strip().startswith("#"):
            break
        comment.append(ln.strip().lstrip("#").strip())
    step = next(s for s in _steps(yaml.safe_load(text)) if s.get("name") == "Install acap")
    return comment, step


def _run_install(step: dict[str, Any], tmp_path: Path) -> tuple[int, str, str]:
    """Run the step's script as GitHub would with no repository variable set: the env
    expression ``vars.ACAP_PIP_SPEC || '<default>'`` gives the default; ``python`` is a
    stand-in that records its arguments."""
    import re
    import subprocess

    m = re.fullmatch(r"\$\{\{ vars\.ACAP_PIP_SPEC \|\| '((?:[^']|'')*)' \}\}",
                     step["env"]["ACAP_PIP_SPEC"])
    assert m, step["env"]
    default = m.group(1).replace("''", "'")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "python").write_text('#!/bin/sh\necho "python $*"\n', encoding="utf-8")
    (bin_dir / "python").chmod(0o755)
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], capture_output=True, text=True,
                          env={"PATH": f"{bin_dir}:/usr/bin:/bin", "ACAP_PIP_SPEC": default},
                          check=False)
    return proc.returncode, proc.stdout, default


def test_the_install_comment_says_what_the_step_does_with_no_default(tmp_path: Path) -> None:
    """Trial item 12: the comment promised "else the source acap init was run from", but
    with no known source the step stops with an error until ACAP_PIP_SPEC is set."""
    from acap.builder import pip_spec
    from acap.builder._init_project import template_text

    assert pip_spec() == ""  # the tests run an editable install: no source to pin
    comment, step = _install_step(template_text("github/workflows/pages.yml"))
    code, out, default = _run_install(step, tmp_path)
    assert (code, default) == (1, "")
    assert "::error::Set the repository variable ACAP_PIP_SPEC" in out
    said = " ".join(comment)
    assert "the source acap init was run from" not in said
    assert ("acap init did not know where this acap came from, so there is no default: "
            "while the variable is empty, this step stops with an error.") in said
    assert "Settings > Secrets and variables > Actions > Variables" in said


def test_the_install_comment_names_the_default_the_step_installs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from acap.builder import _init_project as ip

    monkeypatch.setattr(ip, "pip_spec", lambda: "acap @ git+https://github.com/acme/acap@0123abc")
    comment, step = _install_step(ip.template_text("github/workflows/pages.yml"))
    code, out, default = _run_install(step, tmp_path)
    assert default == "acap @ git+https://github.com/acme/acap@0123abc"
    assert (code, out) == (0, f"python -m pip install {default}\n")
    said = " ".join(comment)
    assert ("else acap @ git+https://github.com/acme/acap@0123abc, the source acap init was "
            "run from.") in said


def test_readme_publishing_tells_how_to_set_acap_pip_spec(tmp_path: Path) -> None:
    """`acap init` asks for the repository variable ACAP_PIP_SPEC; README's Publishing
    section must say what it is and how to set it, where the note points."""
    from support.paths import REPO

    res = CliRunner().invoke(cli, ["init", str(tmp_path / "proj")])
    assert res.exit_code == 0, res.output
    assert ("note: the GitHub workflow needs to know where to install acap from: set the "
            "repository variable ACAP_PIP_SPEC (e.g. acap @ git+https://github.com/OWNER/acap@"
            "COMMIT); see README.md, Publishing > GitHub Actions") in res.stderr
    readme = (REPO / "README.md").read_text("utf-8")
    section = readme.split("\n## Publishing\n", 1)[1].split("\n## ", 1)[0]
    actions = section.split("\n### GitHub Actions\n", 1)[1].split("\n### ", 1)[0]
    assert "ACAP_PIP_SPEC" in actions
    assert "Settings > Secrets and variables > Actions > Variables" in actions
    assert ("gh variable set ACAP_PIP_SPEC --body "
            "'acap @ git+https://github.com/OWNER/acap@COMMIT'") in actions


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
