"""One way to touch the file system (issue 22): outside :mod:`acap.load._files`, no module of
acap opens, reads, writes, copies or renames a file unless it is listed here with its reason,
as ``tests/test_lint.py`` does for imports. A new command that opens a file its own way
fails this test; the fix is :func:`acap.load.read_file` / :func:`acap.load.write_file`, or,
where those cannot serve (acap's own package data, a folder acap just made), an entry below
that says why.
"""

from __future__ import annotations

import ast
from pathlib import Path

from support.paths import SRC

#: The module that is the one way.
THE_MODULE = "load/_files.py"

#: Calls that touch a file: builtin ``open``, a method of these names (``Path.open``,
#: ``read_bytes`` ...), and these module functions.
METHODS = {"open", "read_text", "read_bytes", "write_text", "write_bytes", "rename"}
FUNCTIONS = {("os", "open"), ("os", "fdopen"), ("os", "replace"), ("os", "rename"),
             ("io", "open"), ("codecs", "open")}

_PACKAGE_DATA = ("acap's own package data (acap/data, acap/schemas, acap/spec), installed "
                 "with acap and found by package_path or importlib: never a path a user "
                 "gives or a project holds")
_BELOW_LOAD = ("a root module below acap.load (the import-linter layers), reading acap's "
               "own package data: never a path a user gives")
_REWRITTEN = ("publisher/ and builder/batch/ are being rewritten (issues 20, 24); they route "
              "through this module when they land")
_SFTP = ("a file on the SFTP server (paramiko's SFTP requests), not on this machine: "
         "acap.publisher._fs judges every path on the way first (lstat, no link)")

#: ``(file under src/acap, function, call)``: why it may touch a file itself.
ALLOWED: dict[tuple[str, str, str], str] = {
    ("_lazy.py", "exports.__getattr__", "open"):
        "reads a package's own __init__.py (its list of public names); below acap.load",
    ("requirements.py", "_doc", ".read_bytes"): _BELOW_LOAD,
    ("schemas/__init__.py", "schema_bytes", ".read_bytes"): _BELOW_LOAD,
    ("card/_differences.py", "_load", ".read_bytes"): _PACKAGE_DATA,
    ("checks/_country.py", "_country_names", ".read_bytes"): _PACKAGE_DATA,
    ("checks/_words.py", "_data", ".read_bytes"): _PACKAGE_DATA,
    ("checks/_words.py", "language_name", ".read_bytes"): _PACKAGE_DATA,
    ("builder/pages/_words.py", "_language_table", ".read_bytes"): _PACKAGE_DATA,
    ("builder/_init_project.py", "template_text", ".read_text"): _PACKAGE_DATA,
    ("builder/_init_project.py", "action_ref", ".read_text"):
        "importlib.metadata's record of how acap was installed (direct_url.json), not a file "
        "acap opens by path",
    ("builder/specsite/_hooks.py", "on_page_markdown", ".read_bytes"):
        "an example of the specification site's sources (acap/spec, package data), read by "
        "MkDocs' hook while it builds them",
    ("builder/specsite/_site.py", "build_spec_site", ".read_bytes"):
        "the specification site's examples (package data), and the files MkDocs just wrote "
        "into the temporary folder this function made",
    ("site/_files.py", "_lock_file", "os.open"):
        "the lock file, in the user's own 0700 lock folder checked to be no link and this "
        "user's, opened with O_NOFOLLOW: nothing a user names",
    ("site/_files.py", "write_files", "os.open"):
        "writes new files (O_EXCL, O_NOFOLLOW) into a folder a build just made with mkdtemp "
        "(a new site/ beside the old, a batch's stage): files nobody else can name",
    ("builder/batch/_write.py", "SiteTarget.write", "os.rename"):
        "moves a host folder a batch worker just wrote in its mkdtemp stage into the new "
        "site folder the batch just made: folders, never a file a user names",
    ("site/_tenants.py", "_roll_forward", "os.rename"):
        "moves a host folder of the site out of it into the batch's own mkdtemp folder "
        "beside it, when the batch's journal says the host goes: folders acap owns",
    ("site/_tenants.py", "_swap_one", "os.rename"):
        "swaps a host folder of the site with the one the batch built in its mkdtemp stage "
        "inside the site's own .acap folder, and moves the replaced one out: folders acap "
        "owns, never a file a user names",
    ("site/_files.py", "swap_in", "os.rename"):
        "renames the folder the build just made into site/'s place (and the old site/ into "
        "a folder it just made): folders, not files a user names",
    ("site/_file_stats.py", "record_file_stats", "os.open"):
        "creates the batch's file-stats record with O_EXCL in the site folder it just "
        "swapped in; its mark is the ctime of that open descriptor (_later_mark), which "
        "write_file cannot give",
    ("site/_file_stats.py", "record_file_stats", "os.replace"):
        "renames that record, just made with O_EXCL, over the old one (a rename replaces "
        "a link, never writes through it)",
    ("publisher/_sftp.py", "_upload", ".open"): _SFTP,
    ("publisher/_sftp.py", "SftpFs.read", ".open"): _SFTP,
    ("publisher/_sftp.py", "SftpFs.move", ".rename"): _SFTP,
    ("publisher/_sftp.py", "SftpFs.place", ".rename"): _SFTP,
    ("publisher/_sftp.py", "SftpFs.swap", ".open"): _SFTP,
}


def file_calls(source: str) -> list[tuple[str, str, int]]:
    """``(function, call, line)`` for every call in ``source`` that touches a file: the
    function as ``Class.method`` or ``outer.inner`` (``<module>`` at the top), the call as
    ``open``, ``.read_bytes``, ``os.replace``, ``shutil.copy2`` ..."""
    found: list[tuple[str, str, int]] = []

    def visit(node: ast.AST, scope: list[str]) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                visit(child, [*scope, child.name])
                continue
            if isinstance(child, ast.Call):
                name = _call_name(child.func)
                if name is not None:
                    found.append((".".join(scope) or "<module>", name, child.lineno))
            visit(child, scope)

    visit(ast.parse(source), [])
    return found


def _call_name(func: ast.expr) -> str | None:
    if isinstance(func, ast.Name):
        return "open" if func.id == "open" else None
    if not isinstance(func, ast.Attribute):
        return None
    base = func.value.id if isinstance(func.value, ast.Name) else None
    if base is not None and (base, func.attr) in FUNCTIONS:
        return f"{base}.{func.attr}"
    if base == "shutil" and func.attr.startswith("copy"):
        return f"shutil.{func.attr}"
    return f".{func.attr}" if func.attr in METHODS else None


def _all_calls() -> dict[tuple[str, str, str], list[int]]:
    out: dict[tuple[str, str, str], list[int]] = {}
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel == THE_MODULE:
            continue
        for scope, name, line in file_calls(path.read_text(encoding="utf-8")):
            out.setdefault((rel, scope, name), []).append(line)
    return out


def test_no_file_is_touched_outside_the_files_module_without_a_listed_reason() -> None:
    found = _all_calls()
    unlisted = [f"src/acap/{rel}:{lines[0]}: {name} in {scope}"
                for (rel, scope, name), lines in found.items()
                if (rel, scope, name) not in ALLOWED]
    assert unlisted == [], ("open files through acap.load.read_file / write_file, or list the "
                            "call in ALLOWED with its reason")


def test_every_listed_call_is_still_there() -> None:
    """The list stays true: an entry whose call is gone (routed, removed) is removed."""
    found = _all_calls()
    assert sorted(k for k in ALLOWED if k not in found) == []


def test_every_reason_says_something() -> None:
    assert all(len(reason.split()) >= 5 for reason in ALLOWED.values())


def test_the_walk_finds_each_kind_of_call() -> None:
    """The test above can fail: each form it looks for is found, where it is."""
    source = '''
import os, shutil
from pathlib import Path
def a(p):
    open(p)
    Path(p).read_text()
    p.write_bytes(b"")
    os.replace(p, p)
class B:
    def c(self, p):
        def d():
            shutil.copyfile(p, p)
            os.open(p, 0)
        return p.open()
"x".replace("a", "b")
'''
    assert file_calls(source) == [("a", "open", 5), ("a", ".read_text", 6),
                                  ("a", ".write_bytes", 7), ("a", "os.replace", 8),
                                  ("B.c.d", "shutil.copyfile", 12), ("B.c.d", "os.open", 13),
                                  ("B.c", ".open", 14)]


def test_the_module_named_is_the_one_that_opens_files() -> None:
    calls = file_calls((SRC / THE_MODULE).read_text(encoding="utf-8"))
    assert {name for _, name, _ in calls} >= {"os.open", "os.replace", "os.rename"}
    assert Path(SRC / THE_MODULE).is_file()
