"""The quick way of loading operator.yaml (issue 24): locations only where there is a
finding. A batch loads each operator file without the place of every value; a place is
found when a finding asks for it. On every operator case file (each with findings of its
own) and every valid one, the quick way gives the same data and, through a whole build,
the very same findings (rule, level, message, file, line, column, pointer, hint) as the
located way."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from acap.builder import BuildOptions
from acap.builder._build import assemble
from acap.load import OperatorConfig, load_operator
from acap.load._yaml import SHALLOW, QuickLoaded
from support.cases import Case, materialise, operator_cases
from support.paths import REPO

CASES = operator_cases() + operator_cases(valid=True)
#: How many case files the quick way loaded itself (the others it handed to the located
#: way at the first sign of a finding), and how many of those have findings all the same
#: (from the requirement checks, placed when asked for): counted by the tests below.
QUICK: dict[str, bool] = {}


def case_file(case: Case, folder: Path) -> Path:
    target = materialise(case.path, folder / "operator.yaml")
    private = case.path.with_name(case.path.stem + ".private.yaml")
    if private.exists():
        shutil.copyfile(private, folder / "operator.private.yaml")
    return target


def build_findings(cfg: OperatorConfig) -> list[tuple[object, ...]]:
    ctx = assemble(BuildOptions(config=cfg.path, write=False, create_key=False,
                                spec_site=False), cfg)
    return [(f.rule, f.level, f.message, f.location.file, f.location.line,
             f.location.column, f.location.pointer, f.hint) for f in ctx.report.findings]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_quick_way_gives_the_located_way_s_data_and_findings(case: Case,
                                                                  tmp_path: Path) -> None:
    path = case_file(case, tmp_path)
    located, quick = load_operator(path), load_operator(path, quick=True)
    assert quick.loaded.data == located.loaded.data
    assert quick.findings == located.findings
    assert build_findings(quick) == build_findings(located)
    QUICK[case.id] = isinstance(quick.loaded, QuickLoaded)


def test_the_quick_way_loads_most_case_files_itself(tmp_path: Path) -> None:
    """The comparison above is not one of two located loads: the quick way loaded the
    files whose only findings come from the requirement checks (placed on demand).
    Loads each case itself where the comparison has not (run alone, or in another order)."""
    for n, case in enumerate(CASES):
        if case.id not in QUICK:
            (tmp_path / str(n)).mkdir()
            loaded = load_operator(case_file(case, tmp_path / str(n)), quick=True).loaded
            QUICK[case.id] = isinstance(loaded, QuickLoaded)
    quick = [c for c in CASES if QUICK[c.id] and not c.valid]
    assert len(quick) >= len(CASES) // 3, sorted(QUICK)


def test_a_deep_place_is_found_when_a_finding_asks(tmp_path: Path) -> None:
    """The quick way keeps places down to SHALLOW; a deeper one (a skill's personEntry) is
    the located way's, found once on first use."""
    path = tmp_path / "operator.yaml"
    shutil.copyfile(REPO / "operator.yaml", path)
    located, quick = load_operator(path), load_operator(path, quick=True)
    assert isinstance(quick.loaded, QuickLoaded) and quick.loaded._located is None
    shallow = [p for p in located.loaded.values if p.count("/") <= SHALLOW]
    assert sorted(quick.loaded.values) == sorted(shallow)
    assert len(quick.loaded.values) < len(located.loaded.values)
    deep = "/skills/0/personEntry"
    assert quick.at(deep) == located.at(deep) and quick.loaded._located is not None
    assert quick.at("/signing", key=True) == located.at("/signing", key=True)


@pytest.mark.parametrize("text", [
    "operator:\n\tname: x\n",              # a tab in the indentation
    "operator:\n  name: x\n  name: y\n",   # a duplicate key
    "a: !!binary aGk=\n",                  # a tag
    "skills:\n  -id: x\n",                 # a list item without its space
    "",                                    # nothing
    "a: [1, 2\n",                          # not YAML
])
def test_a_file_with_a_loading_finding_is_loaded_the_located_way(tmp_path: Path,
                                                                 text: str) -> None:
    path = tmp_path / "operator.yaml"
    path.write_text(text, encoding="utf-8")
    quick = load_operator(path, quick=True)
    assert not isinstance(quick.loaded, QuickLoaded)
    assert quick.findings and quick.findings == load_operator(path).findings


def test_a_batch_of_operators_without_findings_is_never_loaded_the_located_way(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No check asks for a place it does not report: a batch whose operators have no
    finding reads each file once, the quick way (a check that asked for the line of
    every skill id made every file load twice)."""
    import sys

    from acap.builder.batch import BatchOptions, build_many
    from acap.load._yaml import QuickLoaded as Quick

    sys.path.insert(0, str(REPO / "bench"))
    from generate import write_operators

    write_operators(tmp_path / "ops", 4)
    located: list[str] = []
    real = Quick.located

    def counted(self: Quick) -> object:
        located.append(self.file)
        return real(self)

    monkeypatch.setattr(Quick, "located", counted)
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  new_keys=True))
    assert len(res.built) == 4 and not res.failed
    assert located == []


def _tree(node: object) -> object:
    """A composed node as plain data: its class, tag, style, place and children."""
    import yaml

    if node is None:  # an empty file
        return None
    assert isinstance(node, yaml.Node)
    mark = (node.start_mark.line, node.start_mark.column, node.end_mark.line,
            node.end_mark.column)
    if isinstance(node, yaml.ScalarNode):
        return ("scalar", node.tag, node.value, node.style, mark)
    if isinstance(node, yaml.SequenceNode):
        return ("sequence", node.tag, node.flow_style, mark, [_tree(n) for n in node.value])
    assert isinstance(node, yaml.MappingNode)
    return ("mapping", node.tag, node.flow_style, mark,
            [(_tree(k), _tree(v)) for k, v in node.value])


#: Plain scalars whose tags PyYAML resolves by their text (and would resolve alike
#: whatever came before them): the quick composer remembers each text's tag.
TAGGED = ("a: 1\nb: '1'\nc: 1.5\nd: true\ne: 'true'\nf: null\ng: ~\nh: 0x1F\ni: 2026-12-01\n"
          "j: .inf\nk: yes\nl: \"null\"\nm: [1, '1', 1.5]\n1: x\ntrue: y\n? [a]\n: z\n"
          "n: !!str 5\no: &x 7\np: *x\nq: |\n  1\n")


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_the_quick_composer_gives_the_very_nodes_of_the_loader(case: Case,
                                                               tmp_path: Path) -> None:
    """The quick way's composer (tags remembered per text, no path-resolver calls) gives
    the node tree (classes, tags, values, styles, marks) the located way's loader gives,
    on every operator case file, each composed twice (the second from what it
    remembered) and after a file of every implicit tag."""
    import yaml

    from acap.load._yaml import YamlLoader, _QuickComposer

    text = case_file(case, tmp_path).read_text(encoding="utf-8", errors="replace")
    try:
        expected = _tree(yaml.compose(text, Loader=YamlLoader))
    except yaml.YAMLError:
        with pytest.raises(yaml.YAMLError):
            yaml.compose(text, Loader=_QuickComposer)
        return
    for source in (text, TAGGED, text):
        if source is TAGGED:
            assert _tree(yaml.compose(source, Loader=_QuickComposer)) == \
                _tree(yaml.compose(source, Loader=YamlLoader))
        else:
            assert _tree(yaml.compose(source, Loader=_QuickComposer)) == expected
