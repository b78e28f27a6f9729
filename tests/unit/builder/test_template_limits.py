"""A template or words file cannot hang the build or fill memory and disk (attacker
trial, HIGH 3): each smallest input that did is now a PAGE-TEMPLATE (or PAGE-WORDS)
error at its file and line, and nothing is written."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from acap.builder import BuildOptions, build
from acap.builder.batch import BatchOptions, build_many
from acap.cli import report_text
from acap.findings import Finding
from support.pages import example_data, page_text, write_yaml
from support.paths import REPO

sys.path.insert(0, str(REPO / "bench"))
from generate import write_operators

TALK = "ask.example.com/talk/index.html"


def _build_with(tmp_path: Path, files: dict[str, str], seconds: float = 5.0) -> list[Finding]:
    cfg = write_yaml(tmp_path, example_data())
    for name, text in files.items():
        target = tmp_path / "templates" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    site = tmp_path / "site"
    result = build(BuildOptions(config=cfg, spec_site=False, template_seconds=seconds))
    assert not result.written and not site.exists()
    return result.report.errors


def _footer_error(tmp_path: Path, text: str, seconds: float = 5.0) -> Finding:
    [f] = _build_with(tmp_path, {"footer.html": text}, seconds)
    assert (f.rule, f.location.file) == ("PAGE-TEMPLATE",
                                         str(tmp_path / "templates" / "footer.html"))
    return f


def test_nested_loops_stop_at_the_operators_deadline(tmp_path: Path) -> None:
    f = _footer_error(tmp_path, '<p>\n{% set s = "x" * 100000 %}\n'
                      "{% for a in s %}{% for b in s %}{% endfor %}{% endfor %}\n", 1.0)
    assert f.location.line == 3
    assert "took longer than 1 seconds" in f.message


def test_the_reports_nested_loops_over_repeats_stop(tmp_path: Path) -> None:
    f = _footer_error(tmp_path, '{% for a in "x"*100000 %}{% for b in "x"*100000 %}'
                      "{% endfor %}{% endfor %}", 1.0)
    assert f.location.line == 1


@pytest.mark.parametrize("text", [
    # a test per item, each a scan of a list (attacker re-trial: 38 s past a 5 s deadline)
    '<p>\n{{ ("y"*20000)|list|select("in", ("x"*20000)|list)|list|length }}',
    '<p>\n{{ ("y"*20000)|list|reject("in", ("x"*20000)|list)|list|length }}',
    # a filter by name per item
    '<p>\n{% set l = ("y"*20000)|list %}{% for i in "x"*2 %}{{ l|map("lower")|map("upper")'
    '|map("trim")|map("lower")|map("upper")|map("trim")|list|length }}{% endfor %}',
])
def test_filters_that_call_a_test_or_filter_per_item_stop_at_the_deadline(
        tmp_path: Path, text: str) -> None:
    f = _footer_error(tmp_path, text, 0.01)
    assert f.location.line == 2
    assert "took longer than 0.01 seconds" in f.message


def test_one_long_step_is_stopped_by_the_timer_in_the_main_thread(tmp_path: Path) -> None:
    """The backstop: a step no hook sees (here a sleep) is stopped by ITIMER_REAL a
    second past the deadline, and the previous SIGALRM handler and timer are put back.
    In a process of its own: pytest-timeout's own timer (SIGALRM) would keep it off."""
    code = (
        "import signal, time\n"
        "from acap.builder.pages._bounded import Meter, TemplateLimit, metered\n"
        "before = signal.getsignal(signal.SIGALRM)\n"
        "try:\n"
        "    with metered(Meter.start(0.01)):\n"
        "        time.sleep(60)\n"
        "except TemplateLimit as exc:\n"
        "    print('stopped:', exc)\n"
        "print(signal.getsignal(signal.SIGALRM) is before, signal.getitimer(0))\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=50)
    assert done.stdout.splitlines() == [
        "stopped: the templates took longer than 0.01 seconds to render (one step ran "
        "long: a filter over a large list)",
        "True (0.0, 0.0)"], done.stderr


@pytest.mark.parametrize(("text", "said"), [
    ('<p>\n{% set s = "x"*300000000 %}{{ s ~ s ~ s }}', "* would repeat to 300000000 items"),
    ('<p>\n{% set a = "x"*100000 %}{% set b = a ~ a %}{% set c = b ~ b %}{% set d = c ~ c %}'
     "{% set e = d ~ d %}{{ e ~ e }}", "this ~ would make 1600000 characters"),
    ('<p>\n{{ "x"|center(300000000) }}', "center's width 300000000 is wider than 10000"),
    ('<p>\n{{ "%300000000s"|format("x") }}', "width 300000000 is wider than 10000"),
    ('<p>\n{{ "%300000000s" % "x" }}', "width 300000000 is wider than 10000"),
    ('<p>\n{{ "{:>300000000}".format("x") }}', "width 300000000 is wider than 10000"),
    ('<p>\n{{ "x".rjust(300000000) }}', "rjust's width 300000000"),
    ("<p>\n{{ 7 ** 300000000 }}", "more than 4096 bits"),
    ('<p>\n{{ ("x"*100000)|replace("", "y"*100) }}', "replace would make"),
    ('<p>\n{{ ("\\n"*100000)|indent(1000) }}', "indent would make"),
    ('<p>\n{{ (["x"*100000]*100000)|join }}', "would make"),
    ('<p>\n{{ ("x"*100000)|map("center", 9999)|join }}', "more than 16777216 characters"),
])
def test_a_step_that_would_make_too_much_is_refused_before_it_runs(
        tmp_path: Path, text: str, said: str) -> None:
    f = _footer_error(tmp_path, text)
    assert f.location.line == 2
    assert said in f.message


def test_a_page_over_the_size_limit_is_not_written(tmp_path: Path) -> None:
    f = _footer_error(tmp_path, '{% for a in "x"*1100 %}' + "y" * 1000 + "{% endfor %}")
    assert (f.location.line, f.message) == (1, "the template stopped: the page would be "
                                          "longer than 1048576 characters")


def test_a_words_placeholder_with_a_format_is_refused_at_its_line(tmp_path: Path) -> None:
    en = (REPO / "src/acap/templates/words/en.yaml").read_text(encoding="utf-8")
    lines = en.splitlines()
    at = next(i for i, line in enumerate(lines)
              if "{operator}" in line and not line.startswith("#"))
    lines[at] = lines[at].replace("{operator}", "{operator:>300000000}")
    errors = _build_with(tmp_path, {"words/en.yaml": "\n".join(lines) + "\n"})
    [f] = [e for e in errors if e.rule == "PAGE-WORDS"]
    assert f.location.file.endswith("templates/words/en.yaml")
    assert f.location.line == at + 1
    assert "{operator:>300000000}" in f.message and f.hint == "write just {operator}"


def test_ordinary_templates_still_render_as_before(tmp_path: Path) -> None:
    cfg = write_yaml(tmp_path, example_data())
    footer = tmp_path / "templates" / "footer.html"
    footer.parent.mkdir()
    footer.write_text('{% for a in [1, 2] %}<p>{{ "%3s"|format(a) }}|{{ "ab"|center(6) }}|'
                      '{{ a ~ "x" }}|{{ "-" * 3 }}|{{ "{}!".format(a) }}</p>{% endfor %}'
                      "{% for a in [] %}{% else %}<p>none</p>{% endfor %}", encoding="utf-8")
    result = build(BuildOptions(config=cfg, spec_site=False))
    assert result.report.ok, report_text(result.report)
    page = page_text(result, TALK)
    assert "<p>  1|  ab  |1x|---|1!</p><p>  2|  ab  |2x|---|2!</p><p>none</p>" in page


def test_a_tenant_past_the_workers_memory_bound_fails_alone(tmp_path: Path) -> None:
    ops = write_operators(tmp_path / "ops", 3)
    templates = ops[0].parent / "templates"
    templates.mkdir()
    # Within every size bound, but a page buffer of literal text grows until memory ends.
    (templates / "footer.html").write_text(
        '{% set s = "x"*100000 %}{% set big %}{% for a in s %}{% for b in s %}y{% endfor %}'
        "{% endfor %}{% endset %}", encoding="utf-8")
    with open(f"/proc/{os.getpid()}/status", encoding="ascii") as status:
        vm = next(int(line.split()[1]) for line in status if line.startswith("VmSize:"))
    res = build_many(BatchOptions(configs=[tmp_path / "ops"], site_dir=tmp_path / "site",
                                  jobs=2, new_keys=True, template_seconds=120,
                                  memory_limit=vm * 1024 + 256 * 1024 * 1024))
    failed = [o for o in res.outcomes if not o.built]
    assert [o.config for o in failed] == [ops[0]], [report_text(o.report) for o in failed]
    [f] = failed[0].report.errors
    assert (f.rule, f.location.file) == ("PAGE-TEMPLATE", str(templates / "footer.html"))
    assert "more memory than the build may use" in f.message
    assert res.written and len(res.built) == 2
