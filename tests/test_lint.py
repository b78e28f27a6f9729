"""Lint, type-check and the layout are part of the test suite: ruff on everything, mypy
--strict on src/, import-linter's layers contract, no import cycle, a small package root,
and public names that load."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

from support.paths import REPO, SRC

STAGES = ["acap.load", "acap.site", "acap.keys", "acap.card", "acap.checks", "acap.builder",
          "acap.builder.pages", "acap.builder.specsite", "acap.builder.batch", "acap.publisher",
          "acap.replies", "acap.cli", "acap"]


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", *args], cwd=REPO, capture_output=True,
                          text=True)


def test_ruff_is_clean() -> None:
    proc = _run("ruff", "check", "src", "tests", "bench", "scripts")
    assert proc.returncode == 0, proc.stdout + proc.stderr


#: McCabe complexity (ruff C901) no function in src/ may exceed: a function a reader can
#: follow. acap.publisher keeps the stricter 10 (tests/unit/publisher/test_complexity.py).
MAX_COMPLEXITY = 12


def _c901(*paths: str) -> subprocess.CompletedProcess[str]:
    """ruff's C901 alone over ``paths``; a ``# noqa`` does not hide a function."""
    return _run("ruff", "check", "--isolated", "--no-cache", "--ignore-noqa", "--select", "C901",
                "--config", f"lint.mccabe.max-complexity = {MAX_COMPLEXITY}", *paths)


def test_no_function_exceeds_mccabe_12() -> None:
    """ruff's C901 at 12 over every function in src/."""
    proc = _c901(str(REPO / "src"))
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_mccabe_check_finds_a_complex_function(tmp_path: Path) -> None:
    """The check above can fail: a function of 13 branches is found and named, even
    with a ``# noqa: C901`` on it."""
    branches = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(13))
    (tmp_path / "judge.py").write_text(
        f"def judge(x: int) -> int:  # noqa: C901\n{branches}    return -1\n")
    proc = _c901(str(tmp_path))
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "`judge` is too complex (14 > 12)" in proc.stdout, proc.stdout


def test_mypy_is_clean() -> None:
    proc = _run("mypy", "src")
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_each_stage_imports_only_the_stages_below_it() -> None:
    """import-linter's layers contract (pyproject.toml), exhaustive: every package and
    module of the package root is in a layer."""
    proc = subprocess.run([str(REPO / ".venv" / "bin" / "lint-imports")]
                          if (REPO / ".venv" / "bin" / "lint-imports").exists()
                          else [sys.executable, "-c", "from importlinter.cli import "
                                "lint_imports_command; lint_imports_command()"],
                          cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "1 kept, 0 broken" in proc.stdout


def _cycles() -> list[list[str]]:
    """Strongly connected components of acap's import graph with more than one module.
    Every import statement counts (function-level and ``TYPE_CHECKING`` ones too); an
    import of a module's own ancestor package does not (a package's ``__init__`` lists
    its children's names; it does not depend on them at run time)."""
    graph = grimp.build_graph("acap")
    mods = sorted(graph.modules)
    edges = {m: {t for t in graph.find_modules_directly_imported_by(m)
                 if not m.startswith(t + ".")} for m in mods}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for m in mods:
        if m not in index:
            visit(m)
    return out


def test_no_import_cycle_among_acaps_modules() -> None:
    assert _cycles() == []


def test_the_cycle_finder_finds_a_cycle(monkeypatch: pytest.MonkeyPatch) -> None:
    """The check above can fail: two modules that import each other are a cycle."""
    class Graph:
        modules = frozenset({"acap.a", "acap.b", "acap.c"})

        def find_modules_directly_imported_by(self, m: str) -> set[str]:
            return {"acap.a": {"acap.b"}, "acap.b": {"acap.a"}, "acap.c": set()}[m]

    monkeypatch.setattr(grimp, "build_graph", lambda _name: Graph())
    assert _cycles() == [["acap.a", "acap.b"]]


def test_the_package_root_holds_at_most_ten_modules() -> None:
    root = sorted(p.name for p in SRC.glob("*.py"))
    assert len(root) <= 10, root


@pytest.mark.parametrize("package", STAGES)
def test_every_public_name_loads_and_is_documented(package: str) -> None:
    """Each package's ``__all__`` is its ``TYPE_CHECKING`` import lines, and every name
    loads (on first use) from the module they name, with a docstring when it is a
    function or class."""
    mod = importlib.import_module(package)
    assert mod.__file__ is not None
    with open(mod.__file__, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    listed = {a.asname or a.name: node.module for node in ast.walk(tree)
              if isinstance(node, ast.ImportFrom) and node.module
              for a in node.names if a.asname == a.name}
    assert sorted(listed) == mod.__all__
    for name, source in listed.items():
        value = getattr(mod, name)
        assert value is getattr(importlib.import_module(str(source)), name), name
        if callable(value) and not isinstance(value, type(re)) and \
                getattr(value, "__module__", "").startswith("acap"):
            assert (value.__doc__ or "").strip(), f"{package}.{name} has no docstring"


def test_nothing_below_the_cli_imports_click_or_prints() -> None:
    """Library first: only acap.cli (and the console script's way out) talks to the
    terminal."""
    found = []
    for path in SRC.rglob("*.py"):
        rel = path.relative_to(SRC).as_posix()
        if rel.startswith("cli/") or rel == "_entry.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) \
                    else [node.module or ""]
                found += [f"{rel}: imports {n}" for n in names if n.split(".")[0] == "click"]
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                    node.func.id == "print":
                found.append(f"{rel}:{node.lineno}: print()")
    assert found == []


def test_acap_help_imports_no_stage() -> None:
    code = ("import sys; from acap.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('acap.')))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                          text=True)
    loaded = proc.stdout.strip().splitlines()[-1]
    stages = [s for s in STAGES if s not in ("acap", "acap.cli")]
    assert not [s for s in stages if f"'{s}'" in loaded or f"'{s}." in loaded], loaded


def test_the_version_is_written_once_in_code() -> None:
    """acap/_package.py holds the version; pyproject.toml reads it from there (hatch's
    dynamic version) and writes none of its own. The built wheel's metadata says it too
    (tests/acceptance/test_release.py)."""
    import acap

    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")  # no tomllib on Python 3.10
    assert re.findall(r'^version = "([^"]+)"$', text, flags=re.M) == []
    assert 'dynamic = ["version"]' in text
    assert re.search(r'^\[tool\.hatch\.version\]\npath = "src/acap/_package.py"$', text, re.M)
    written = [p for p in SRC.rglob("*.py")
               if re.search(r'^__version__ = "', p.read_text(encoding="utf-8"), re.M)]
    assert written == [SRC / "_package.py"]
    assert re.fullmatch(r"\d+\.\d+\.\d+", acap.__version__)


def _defined_in(module: str, name: str) -> bool:
    """True when ``name`` is defined (not imported) at the top of ``module``'s source."""
    mod = importlib.import_module(module)
    if mod.__file__ is None or mod.__file__.endswith("__init__.py"):
        return True  # a package's public name: defined wherever its import line says
    with open(mod.__file__, encoding="utf-8") as fh:
        tree = ast.parse(fh.read())
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node.name == name:
            return True
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, ast.AnnAssign) else []
        if any(isinstance(x, ast.Name) and x.id == name for x in targets):
            return True
    return False


def test_every_reference_in_a_docstring_names_something_that_exists() -> None:
    """``:func:`acap.x.y``` and the like, in the code and in ARCHITECTURE.md, name the
    module that defines the thing (a re-export does not count), and no reference is
    relative (``:mod:`.pages```): a newcomer following them lands on the code."""
    pattern = re.compile(r":(?:func|mod|class|data|meth|attr|exc):`~?(\.?[\w.]+)`")
    wrong = []
    for path in [*sorted(SRC.rglob("*.py")), REPO / "ARCHITECTURE.md"]:
        text = path.read_text(encoding="utf-8")
        for m in pattern.finditer(text):
            ref, where = m.group(1), f"{path.name}:{text[:m.start()].count(chr(10)) + 1}"
            if ref.startswith("."):
                wrong.append(f"{where}: relative {ref}")
            if not ref.startswith("acap."):
                continue
            parts = ref.split(".")
            for i in range(len(parts), 0, -1):
                try:
                    obj: object = importlib.import_module(".".join(parts[:i]))
                except ImportError:
                    continue
                module, rest = ".".join(parts[:i]), parts[i:]
                break
            try:
                for attr in rest:
                    obj = getattr(obj, attr)
            except AttributeError:
                wrong.append(f"{where}: {ref} does not exist")
                continue
            if rest and not _defined_in(module, rest[0]):
                wrong.append(f"{where}: {ref} is not defined in {module}")
    assert wrong == []


def test_no_stage_imports_another_stages_private_modules() -> None:
    """Internals look internal: ``acap.x._y`` is imported only inside ``acap.x``; the other
    stages use ``acap.x``'s public names."""
    found = []
    for path in [*SRC.rglob("*.py"), *(REPO / "scripts").rglob("*.py")]:
        me = ".".join(("acap", *path.relative_to(SRC).with_suffix("").parts)) \
            if path.is_relative_to(SRC) else "scripts"
        me = me.removesuffix(".__init__")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module and
                    node.module.startswith("acap.")):
                continue
            parts = node.module.split(".")
            private = next((i for i, p in enumerate(parts) if p.startswith("_")), None)
            if private is None:
                continue
            owner = ".".join(parts[:private])
            if me != owner and not me.startswith(owner + "."):
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.module}")
    assert found == []


def test_every_function_level_import_says_why_it_is_there() -> None:
    """Function-local imports stay only where they keep start-up fast (or a platform may
    lack the module), each with a comment on its line or the line above saying so."""
    found = []
    for path in SRC.rglob("*.py"):
        lines = path.read_text(encoding="utf-8").splitlines()
        for fn in ast.walk(ast.parse("\n".join(lines))):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    line, above = lines[node.lineno - 1], lines[node.lineno - 2].strip()
                    if "#" not in line and not above.startswith("#"):
                        found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert sorted(set(found)) == []
