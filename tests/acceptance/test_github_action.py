"""The composite GitHub Action (action.yml at the root), its steps run as a runner runs them.

GitHub's runner cannot run here; what it would do with this action can: each ``run:``
step goes to bash with the environment the runner gives a composite step
(``GITHUB_ACTION_PATH``, ``RUNNER_TEMP``, ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY``,
and the step's own ``env:`` with the inputs filled in). The install step installs acap
from this repository into a fresh virtual environment, whose ``python`` and ``acap``
the later steps use, as on a runner after actions/setup-python.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from acap.builder import init_project
from acap.card import verify_card
from support.paths import REPO

ACTION = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
CONSTRAINTS = REPO / "src" / "acap" / "data" / "constraints.txt"
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


def test_inputs_reach_scripts_only_through_the_environment() -> None:
    """An input pasted into a script is a script injection (a key or a path with "$(" in
    it would run); every ``${{ }}`` of a ``run:`` is refused, inputs go through ``env:``."""
    for step in STEPS:
        if "run" in step:
            assert not EXPRESSION.search(step["run"]), step["name"]
            assert step["shell"] == "bash"
    used = {m for step in STEPS for v in (step.get("env") or {}).values()
            for m in EXPRESSION.findall(str(v))}
    assert {f"inputs.{name}" for name in ("signing-key", "config", "website", "strict")} <= used


def test_the_action_uses_current_majors_and_keeps_the_hidden_folder() -> None:
    uses = [s["uses"] for s in STEPS if "uses" in s]
    assert uses == ["actions/setup-python@v7", "actions/cache@v5",
                    "actions/upload-pages-artifact@v5"]
    upload = STEPS[-1]
    # include-hidden-files arrived in upload-pages-artifact v5; v4 drops dot folders,
    # and with them .well-known/ (the card and its keys).
    assert upload["with"]["include-hidden-files"] is True
    assert upload["with"]["path"] == "${{ steps.acap.outputs.folder }}"
    # nothing is uploaded while operator.yaml has acap init's placeholders
    assert upload["if"] == "inputs.upload == 'true' && steps.acap.outputs.publish == 'true'"
    assert ACTION["outputs"]["publish"]["value"] == "${{ steps.acap.outputs.publish }}"
    # optional: an unedited acap init project runs without the secret (and deploys nothing)
    assert ACTION["inputs"]["signing-key"]["required"] is False


def test_pip_s_cache_is_keyed_on_the_constraints_acap_ships(tmp_path: Path) -> None:
    """The key step, run as a runner runs it: pip's cache folder, and a key that changes
    with the Python and with every pinned version (the constraints file's digest)."""
    import hashlib

    [step] = [s for s in STEPS if s.get("id") == "pip"]
    cache = next(s for s in STEPS if s.get("uses", "").startswith("actions/cache@"))
    assert cache["with"] == {"path": "${{ steps.pip.outputs.dir }}",
                             "key": "${{ steps.pip.outputs.key }}"}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    env = {**_base_env(venv / "bin", tmp_path), "RUNNER_OS": "Linux"}
    proc = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    outputs = dict(line.split("=", 1) for line in
                   (tmp_path / "output").read_text(encoding="utf-8").splitlines())
    digest = hashlib.sha256(CONSTRAINTS.read_bytes()).hexdigest()
    version = "{}.{}".format(*sys.version_info[:2])
    assert outputs["key"] == f"acap-pip-Linux-{version}-{digest}"
    pip_dir = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "cache", "dir"],
                             env=env, capture_output=True, text=True, check=True).stdout
    assert outputs["dir"] == pip_dir.strip()


def test_the_constraints_pin_every_default_dependency_exactly() -> None:
    """Each line is NAME==VERSION; together they cover what a default install of acap
    needs on this Python (the closure of its requirements, extras left out)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("constraints", REPO / "scripts" /
                                                  "constraints.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    pins = dict(line.split("==") for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#"))
    assert all(re.fullmatch(r"[a-z0-9-]+", n) and re.fullmatch(r"[0-9][0-9a-z.+]*", v)
               for n, v in pins.items()), pins
    assert set(module.closure()) == set(pins)
    assert {"phonenumberslite", "cryptography", "mkdocs"} <= set(pins)
    assert not {"phonenumbers", "paramiko", "a2a-sdk", "pytest"} & set(pins)


@pytest.fixture(scope="module")
def runner_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh virtual environment, acap installed into it by the action's install step
    (from GITHUB_ACTION_PATH, the action's own files); its bin folder."""
    venv = tmp_path_factory.mktemp("runner") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    [install] = [s for s in STEPS if s.get("name") == "Install acap"]
    env = {**_base_env(venv / "bin", tmp_path_factory.mktemp("temp")), "ACAP_SOURCE": ""}
    proc = subprocess.run(["bash", "-e", "-c", install["run"]], env=env, capture_output=True,
                          text=True, timeout=900, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert (venv / "bin" / "acap").is_file()
    # the dependencies as acap was tested with them: each pinned version installed
    listed = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "list",
                             "--format=freeze"], capture_output=True, text=True, check=True)
    have = {n.lower().replace("_", "-"): v for n, v in
            (line.split("==") for line in listed.stdout.splitlines() if "==" in line)}
    pins = dict(line.split("==") for line in CONSTRAINTS.read_text(encoding="utf-8").splitlines()
                if line and not line.startswith("#"))
    assert {n: have.get(n) for n in pins} == pins
    return venv / "bin"


def _base_env(bin_dir: Path, temp: Path) -> dict[str, str]:
    return {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/root"),
            "GITHUB_ACTION_PATH": str(REPO), "RUNNER_TEMP": str(temp),
            "GITHUB_OUTPUT": str(temp / "output"), "GITHUB_STEP_SUMMARY": str(temp / "summary"),
            **{k: v for k, v in os.environ.items() if k.startswith(("PIP_", "LANG", "LC_"))}}


def _run_build_step(bin_dir: Path, project: Path, temp: Path, key: str,
                    **inputs: str) -> subprocess.CompletedProcess[str]:
    [step] = [s for s in STEPS if s.get("id") == "acap"]
    values = {"signing-key": key, "config": "operator.yaml", "website": "", "strict": "false",
              **inputs}
    env = {name: EXPRESSION.sub(lambda m: values[m[1].removeprefix("inputs.")], str(v))
           for name, v in step["env"].items()}
    temp.mkdir(exist_ok=True)
    return subprocess.run(["bash", "-e", "-c", step["run"]], cwd=project,
                          env={**_base_env(bin_dir, temp), **env}, capture_output=True,
                          text=True, timeout=600, check=False)


def _pem() -> str:
    key = ec.generate_private_key(ec.SECP256R1())
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                             serialization.NoEncryption()).decode()


def _own_hosts(config: Path) -> None:
    """Put a website of the operator's own in place of the reserved example hosts
    (``acap publish`` refuses those: PUBLISH-PLACEHOLDER)."""
    text = config.read_text(encoding="utf-8")
    config.write_text(text.replace("example.com", "praxis-beispiel.de")
                      .replace("example.org", "praxis-beispiel.de"), encoding="utf-8")


def test_the_action_builds_checks_and_gathers_the_card_host(runner_python: Path,
                                                            tmp_path: Path) -> None:
    """An `acap init` project, the key from the secret: the folder to upload holds the
    signed card, its keys and nothing private; the outputs and the run's summary say
    what is deployed, and each host that is not, with what to do. The bundled example
    (Annex A's chapel) builds three hosts: the card's, the personEntry page's, the spec
    site's."""
    project = tmp_path / "project"
    init_project(project)
    (project / "operator.yaml").write_bytes((REPO / "operator.yaml").read_bytes())
    _own_hosts(project / "operator.yaml")
    (project / "public").mkdir()  # the website the card goes beside (it has a home page)
    (project / "public" / "index.html").write_bytes(b"<h1>Chapel</h1>\n")
    temp = tmp_path / "temp"
    proc = _run_build_step(runner_python, project, temp, _pem(), website="public")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    outputs = dict(line.split("=", 1) for line in
                   (temp / "output").read_text(encoding="utf-8").splitlines())
    folder = Path(outputs["folder"])
    assert folder == temp / "acap-pages"
    assert outputs["card-url"] == "https://praxis-beispiel.de/.well-known/agent-card.json"
    assert verify_card(str(folder / ".well-known/agent-card.json"),
                       str(folder / ".well-known/jwks.json")).ok
    assert not any(b"PRIVATE KEY" in p.read_bytes() for p in folder.rglob("*") if p.is_file())
    # the key came from the secret: none was made in the project
    assert not (project / ".acap" / "signing-key.pem").exists()
    summary = (temp / "summary").read_text(encoding="utf-8")
    assert "acap deploys praxis-beispiel.de to GitHub Pages" in summary
    others = sorted(p.name for p in (project / "site").iterdir()
                    if p.is_dir() and not p.name.startswith(".")
                    and p.name != "praxis-beispiel.de")
    assert others == ["agent-capability.org", "ask.praxis-beispiel.de"]
    for host in others:
        assert f"{host} is not deployed by this workflow" in summary
        assert f"acap publish --host {host}" in summary
        assert re.search(rf"^::notice title=acap::{re.escape(host)} is not deployed",
                         proc.stdout, re.M)


def test_an_unedited_init_project_s_first_run_is_green_and_deploys_nothing(
        runner_python: Path, tmp_path: Path) -> None:
    """acap init's project as it is, pushed before anyone made the secret: the run builds
    and checks (a throwaway key signs), succeeds, uploads nothing, and its notice names
    every placeholder to replace, with its line."""
    project = tmp_path / "project"
    init_project(project)
    temp = tmp_path / "temp"
    proc = _run_build_step(runner_python, project, temp, "")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    outputs = dict(line.split("=", 1) for line in
                   (temp / "output").read_text(encoding="utf-8").splitlines())
    assert outputs["publish"] == "false" and outputs["folder"] == ""
    assert not any((temp / "acap-pages").iterdir())  # nothing to deploy
    [notice] = [line for line in proc.stdout.splitlines() if line.startswith("::notice")]
    assert notice.startswith("::notice title=acap::Built and checked, not deployed: "
                             "operator.yaml still has acap init's example addresses")
    said = notice.split("::", 2)[2].split("%0A")
    text = (project / "operator.yaml").read_text(encoding="utf-8").splitlines()
    website = next(i for i, line in enumerate(text, 1) if line.startswith("  website:"))
    assert f"operator.yaml:{website}:12: operator.website: https://example.org" in said
    assert any(s.endswith("skills[1].personEntry: https://example.org/ask") for s in said)
    assert any(s.endswith("contact.email: ask@example.org") for s in said)
    assert "This run signed with a throwaway key" in said[-1]
    # it was built and checked: the card verifies
    card = project / "site" / "example.org" / ".well-known" / "agent-card.json"
    assert verify_card(str(card), str(card.with_name("jwks.json"))).ok
    summary = (temp / "summary").read_text(encoding="utf-8")
    assert "- `operator.yaml:" in summary
    # with the secret, the same: built, not deployed, and no word of a throwaway key
    proc = _run_build_step(runner_python, project, tmp_path / "temp2", _pem())
    assert proc.returncode == 0 and "throwaway" not in proc.stdout
    assert "publish=false" in (tmp_path / "temp2" / "output").read_text(encoding="utf-8")


def test_the_action_stops_without_the_key_and_makes_none(runner_python: Path,
                                                         tmp_path: Path) -> None:
    project = tmp_path / "project"
    init_project(project)
    _own_hosts(project / "operator.yaml")
    proc = _run_build_step(runner_python, project, tmp_path / "temp", "")
    assert proc.returncode == 1
    assert proc.stdout.startswith("::error title=acap::Add the repository secret "
                                  "ACAP_SIGNING_KEY")
    assert not (project / "site").exists() and not (project / ".acap").exists()


def test_a_website_folder_is_deployed_with_the_card_beside_it(runner_python: Path,
                                                             tmp_path: Path) -> None:
    """``website:``: the card host is the operator's website (overlay, as acap init's
    operator.yaml has it for the host of ``website``): its files go out byte for byte,
    with acap's beside them."""
    project = tmp_path / "project"
    init_project(project)
    www = project / "public"
    (www / "css").mkdir(parents=True)
    pages = {"index.html": b"<h1>Praxis</h1>\n", "impressum.html": b"<p>Impressum</p>\n",
             "css/site.css": b"h1{color:#333}\n"}
    for rel, data in pages.items():
        (www / rel).write_bytes(data)
    temp = tmp_path / "temp"
    # acap init's placeholder website (example.org) does not go out
    proc = _run_build_step(runner_python, project, temp, _pem(), website="public")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "publish=false" in (temp / "output").read_text(encoding="utf-8")
    assert "operator.website: https://example.org" in proc.stdout
    _own_hosts(project / "operator.yaml")
    proc = _run_build_step(runner_python, project, temp, _pem(), website="public")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    folder = temp / "acap-pages"
    assert {rel: (folder / rel).read_bytes() for rel in pages} == pages
    assert (folder / ".well-known/agent-card.json").is_file()
    assert {p.name for p in www.rglob("*")} == {"index.html", "impressum.html", "css",
                                                "site.css"}


def test_a_card_host_with_no_home_page_is_never_deployed(runner_python: Path,
                                                         tmp_path: Path) -> None:
    """Fresh-operator trial (MEDIUM): acap init's workflow deployed to Pages a folder with
    acap's files and no home page, which takes the operator's website's address. The card
    host is the operator's website (overlay, as acap init writes it) and no ``website:``
    is given: the run is green, deploys nothing, its warning says why and the three ways
    on; the folder for Pages is not even written (no PUBLISH-TARGET warning about it).
    With overlay: false acap writes the home page, and the run deploys."""
    project = tmp_path / "project"
    init_project(project)
    _own_hosts(project / "operator.yaml")
    temp = tmp_path / "temp"
    proc = _run_build_step(runner_python, project, temp, _pem())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    outputs = dict(line.split("=", 1) for line in
                   (temp / "output").read_text(encoding="utf-8").splitlines())
    assert (outputs["publish"], outputs["folder"]) == ("false", "")
    assert not any((temp / "acap-pages").iterdir())
    [warning] = [line for line in proc.stdout.splitlines() if line.startswith("::warning")]
    said = warning.split("::", 2)[2].split("%0A")
    assert said[0].startswith("Built and checked, not deployed: praxis-beispiel.de would "
                              "have no home page on GitHub Pages")
    assert "acap never replaces a website" in said[0]
    assert "with: website: public" in said[1]
    assert "acap publish --host praxis-beispiel.de --sftp sftp://LOGIN@SERVER/~/public_html" \
        in said[2]
    assert "hosts: praxis-beispiel.de: overlay: false" in said[3]
    assert "PUBLISH-TARGET" not in proc.stdout
    # acap's pages are all of the host: it writes index.html, and the run deploys
    config = project / "operator.yaml"
    text = config.read_text(encoding="utf-8")
    assert "\n  praxis-beispiel.de:\n" in text
    config.write_text(text.replace("\n  praxis-beispiel.de:\n",
                                   "\n  praxis-beispiel.de:\n    overlay: false\n", 1),
                      encoding="utf-8")
    proc = _run_build_step(runner_python, project, tmp_path / "temp2", _pem())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "publish=true" in (tmp_path / "temp2" / "output").read_text(encoding="utf-8")
    assert (tmp_path / "temp2" / "acap-pages" / "index.html").is_file()
