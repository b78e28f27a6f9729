"""One tenant of a batch against another, or against the build machine (issue 12).

A hosting platform builds many tenants' folders in one batch, each folder edited by
its business. Each test gives one tenant the smallest hostile input that worked
before, and asserts the refusal, its rule id and place, and that nothing else
changed: every other tenant's folders byte for byte.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import pytest

from acap.builder.batch import BatchOptions, BatchResult, build_many
from acap.cli import report_text
from acap.findings import Finding
from support.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import write_operators


def tree(site: Path) -> dict[str, str]:
    return {str(p.relative_to(site)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(site.rglob("*")) if p.is_file()}


def hosts_of(files: dict[str, str], *hosts: str) -> dict[str, str]:
    return {k: v for k, v in files.items() if k.split("/", 1)[0] in hosts}


def batch(tmp_path: Path, count: int = 3, **kw: object) -> tuple[list[Path], Path]:
    """``count`` tenants (op0.example ...) built into tmp_path/site; their operator files."""
    ops = write_operators(tmp_path / "ops", count)
    site = tmp_path / "site"
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=site, **kw))  # type: ignore[arg-type]
    assert res.written and not res.failed, [report_text(o.report) for o in res.failed]
    return ops, site


def rebuild(tmp_path: Path, **kw: object) -> BatchResult:
    return build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                   **kw))  # type: ignore[arg-type]


def only_error(res: BatchResult, config: Path) -> Finding:
    """The one error of the tenant ``config``, which did not build; every other built."""
    failed = [o for o in res.outcomes if not o.built]
    assert [o.config for o in failed] == [config], [report_text(o.report) for o in failed]
    [err] = failed[0].report.errors
    return err


def line_of(config: Path, text: str) -> int:
    return config.read_text(encoding="utf-8").splitlines().index(text) + 1


# -- 1. templates are rendered in the sandbox -------------------------------------------

ESCAPES = [
    "{{ lipsum.__globals__['os'].popen('touch PWNED').read() }}",
    "{{ cycler.__init__.__globals__.os.popen('touch PWNED').read() }}",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "{{ page.__class__.__init__.__globals__['sys'].modules['os'].popen('touch PWNED') }}",
    "{{ words.__call__.__globals__['__builtins__']['open']('../op00001/.acap/"
    "signing-key.pem').read()|reverse }}",
    "{% for x in range(3) %}{{ x }}{% endfor %}",
]


@pytest.mark.parametrize("escape", ESCAPES)
def test_a_template_cannot_reach_python_or_files(tmp_path: Path, escape: str,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    monkeypatch.chdir(ops[0].parent)
    tpl = ops[0].parent / "templates"
    tpl.mkdir()
    (tpl / "footer.html").write_text("<p>hello</p>\n" + escape + "\n", encoding="utf-8")
    res = rebuild(tmp_path)
    err = only_error(res, ops[0])
    assert err.rule == "PAGE-TEMPLATE"
    assert (err.location.file, err.location.line) == (str(tpl / "footer.html"), 2)
    assert "sandbox" in err.message or "a name acap does not give it" in err.message
    assert not (ops[0].parent / "PWNED").exists()
    after = tree(site)
    assert hosts_of(after, "op1.example", "op2.example") == \
        hosts_of(before, "op1.example", "op2.example")
    assert hosts_of(after, "op0.example") == hosts_of(before, "op0.example")  # kept as it was
    key = (ops[1].parent / ".acap" / "signing-key.pem").read_text()
    body = "".join(key.splitlines()[1:-1])
    assert not any(body[:20] in (site / k).read_text("latin-1") or
                   body[::-1][:20] in (site / k).read_text("latin-1") for k in after)


def test_a_template_includes_only_from_its_own_folder(tmp_path: Path) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    other = ops[1].parent / "templates"
    other.mkdir()
    (other / "secret.html").write_text("<p>op1's own words</p>\n", encoding="utf-8")
    tpl = ops[0].parent / "templates"
    tpl.mkdir()
    (tpl / "footer.html").write_text('{% include "../../op00001/templates/secret.html" %}\n',
                                     encoding="utf-8")
    res = rebuild(tmp_path)
    [failed] = res.failed
    assert failed.config == ops[0]
    [err] = failed.report.errors
    assert err.rule == "PAGE-TEMPLATE" and "not found" in err.message
    assert err.location.file == str(tpl / "footer.html")
    after = tree(site)
    assert hosts_of(after, "op0.example", "op2.example") == \
        hosts_of(before, "op0.example", "op2.example")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_template_that_is_no_regular_file_is_refused_unread(tmp_path: Path,
                                                              kind: str) -> None:
    ops, site = batch(tmp_path)
    before = tree(site)
    tpl = ops[0].parent / "templates"
    tpl.mkdir()
    if kind == "fifo":
        os.mkfifo(tpl / "footer.html")
    else:
        (tpl / "footer.html").symlink_to("/dev/zero")
    res = rebuild(tmp_path)  # returns: nothing waits on the FIFO or reads /dev/zero
    err = only_error(res, ops[0])
    assert err.rule == "PAGE-TEMPLATE"
    assert err.location.file == str(tpl / "footer.html")
    assert ("FIFO" if kind == "fifo" else "outside the templates folder") in err.message
    assert hosts_of(tree(site), "op0.example", "op1.example", "op2.example") == \
        hosts_of(before, "op0.example", "op1.example", "op2.example")
