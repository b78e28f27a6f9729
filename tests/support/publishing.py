"""Helpers for the publish, serve, live-check and init tests (not a test module)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from acap.builder import BuildOptions, build
from acap.builder._build import BuildResult
from acap.cli import report_text
from acap.publisher import PublishOptions
from support.paths import EXAMPLE


def git(*args: str, cwd: Path | None = None, check: bool = True) -> str:
    """Run git (never touching the user's config for identity) and return stdout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_AUTHOR_NAME": "Test", "GIT_AUTHOR_EMAIL": "test@example.invalid",
                "GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.invalid",
                "GIT_CONFIG_NOSYSTEM": "1"})
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, env=env,
                          check=False)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def bare_repo(path: Path) -> Path:
    """A new empty bare repository at ``path``."""
    git("init", "-q", "--bare", str(path))
    return path


def branch_tip(repo: Path, branch: str = "gh-pages") -> str | None:
    """The commit ``branch`` points at in ``repo``, or ``None``."""
    out = git("for-each-ref", "--format=%(objectname)", f"refs/heads/{branch}", cwd=repo)
    return out.strip() or None


def tree_files(repo: Path, rev: str) -> dict[str, bytes]:
    """``{path: bytes}`` of every file in ``rev``'s tree."""
    names = git("ls-tree", "-r", "-z", "--name-only", rev, cwd=repo).split("\0")
    out = {}
    for name in filter(None, names):
        out[name] = subprocess.run(["git", "show", f"{rev}:{name}"], cwd=repo,
                                   capture_output=True, check=True).stdout
    return out


def project(tmp_path: Path, *, replace: dict[str, str] | None = None,
            overlay: bool | None = None) -> Path:
    """A copy of the bundled operator.yaml in ``tmp_path/project``; returns the file.

    ``overlay`` sets ``hosts.example.com.overlay`` (the operator's website host, where acap
    adds its files beside the website unless told ``False``: it then owns the host whole).
    """
    folder = tmp_path / "project"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / "operator.yaml"
    shutil.copyfile(EXAMPLE, target)
    if replace:
        edit(target, replace)
    if overlay is not None:
        set_overlay(target, "example.com", overlay)
    return target


def set_overlay(path: Path, host: str, overlay: bool) -> None:
    """Set ``hosts.<host>.overlay`` in operator.yaml."""
    def fn(d: dict[str, Any]) -> None:
        hosts = d.setdefault("hosts", {})
        hosts[host] = {**(hosts.get(host) or {}), "overlay": overlay}
    change(path, fn)


def change(path: Path, fn: Callable[[dict[str, Any]], None]) -> None:
    """Load operator.yaml as data, let ``fn`` change it, write it back (comments go)."""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    fn(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True), encoding="utf-8")


def publish_to(path: Path, host: str, **target: str) -> None:
    """Set ``hosts.<host>.publish`` in operator.yaml."""
    change(path, lambda d: d.setdefault("hosts", {}).setdefault(host, {}).__setitem__(
        "publish", dict(target)))


def set_cname(path: Path, host: str, cname: str | None) -> None:
    """Set or remove ``hosts.<host>.cname``."""
    def fn(d: dict[str, Any]) -> None:
        settings = d.setdefault("hosts", {}).setdefault(host, {}) or {}
        if cname is None:
            settings.pop("cname", None)
        else:
            settings["cname"] = cname
        d["hosts"][host] = settings
    change(path, fn)


def set_version(path: Path, version: str) -> None:
    """Set ``agent.version`` (a change that alters the card)."""
    change(path, lambda d: d["agent"].__setitem__("version", version))


def edit(path: Path, replace: dict[str, str]) -> None:
    """Replace text in a file; each old text must occur exactly once."""
    text = path.read_text(encoding="utf-8")
    for old, new in replace.items():
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times in {path}"
        text = text.replace(old, new)
    path.write_text(text, encoding="utf-8")


def do_build(config: Path) -> BuildResult:
    """Build ``config`` into ``site/`` beside it; the build must succeed."""
    result = build(BuildOptions(config=config))
    assert result.report.ok, report_text(result.report)
    assert result.written
    return result


def manifest(site: Path) -> dict[str, object]:
    """The build manifest of ``site``."""
    data: dict[str, object] = json.loads((site / ".acap/manifest.json").read_text("utf-8"))
    return data


def host_manifest_files(site: Path, host: str) -> set[str]:
    """Paths (relative to the host root) the build manifest lists for ``host``."""
    files = manifest(site)["files"]
    assert isinstance(files, dict)
    return {rel[len(host) + 1:] for rel in files if rel.startswith(host + "/")}


def add_to_site(site: Path, rel: str, data: bytes) -> None:
    """Put a file into site/ *and* its hash into the manifest, as if the build wrote it
    (to test the checks behind the manifest comparison)."""
    target = site / rel
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(data)
    man = manifest(site)
    files = man["files"]
    assert isinstance(files, dict)
    files[rel] = hashlib.sha256(data).hexdigest()
    (site / ".acap/manifest.json").write_text(json.dumps(man, indent=2, sort_keys=True) + "\n",
                                              encoding="utf-8")


def snapshot(folder: Path) -> dict[str, bytes]:
    """``{relative path: bytes}`` of every file under ``folder`` (``{}`` if absent)."""
    if not folder.exists():
        return {}
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def served(config: Path, host: str, hosting: str) -> dict[str, bytes]:
    """What acap publishes of ``site/<host>/`` to a target served by ``hosting``: the
    build's files without the hosting files that kind does not read."""
    from acap.publisher._hosting import for_kind

    return for_kind(snapshot(config.parent / "site" / host), hosting)


def record_path(folder: Path) -> Path:
    """Where acap's record of its publish into ``folder`` lies: beside it, outside what a
    web server serves (``/srv/www`` -> ``/srv/.www.acap-published.json``)."""
    return folder.parent / f".{folder.name}.acap-published.json"


def record_files(folder: Path) -> dict[str, list[str]]:
    """``{path: [SHA-256 hex, ...]}`` of acap's record beside ``folder``."""
    files: dict[str, list[str]] = json.loads(record_path(folder).read_text("utf-8"))["files"]
    return files


def branch_record(repo: Path, rev: str = "gh-pages") -> dict[str, list[str]]:
    """``{path: [SHA-256 hex, ...]}`` of acap's record in the message of ``rev``."""
    import base64

    message = git("log", "-1", "--format=%B", rev, cwd=repo)
    [line] = [ln for ln in message.splitlines() if ln.startswith("Published-record: ")]
    text = line.split(": ", 1)[1]
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    files: dict[str, list[str]] = json.loads(raw)["files"]
    return files


def trial(**options: Any) -> PublishOptions:
    """:class:`PublishOptions` for the tests' projects, which publish the bundled example's
    hosts (``example.com``, reserved for examples): with ``allow_example_hosts``, the
    option ``acap publish --allow-example-hosts`` gives for trying acap out; and with
    ``create`` (``--create``), since most tests publish somewhere for the first time (the
    tests of a missing target say ``create=False``)."""
    return PublishOptions(**{"allow_example_hosts": True, "create": True, **options})
