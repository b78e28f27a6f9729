"""A personEntry on a page the website has already is refused at build (issue 20, item 3).

The trial's case: personEntry on the clinic's own /contacto page built fine, and then
acap publish suggested renaming the page or --force, both of which would destroy it. Where
operator.yaml publishes the website's host into a folder on this machine, the build sees
the page and refuses, at the personEntry's line, with a hint to choose another address.
"""

from __future__ import annotations

from pathlib import Path

from acap.builder import BuildOptions, build
from acap.cli import report_text
from acap.publisher import publish
from support.publishing import change, do_build, project, publish_to, snapshot, trial


def _clinic(tmp_path: Path, page: str) -> tuple[Path, Path]:
    """A project whose pricing personEntry is https://example.com/<page>, publishing
    example.com (the website's host) into the folder returned."""
    config = project(tmp_path)

    def move(d: dict[str, object]) -> None:
        for s in d["skills"]:  # type: ignore[attr-defined]
            if s["id"] == "service-pricing":
                s["personEntry"] = f"https://example.com/{page}"
    change(config, move)
    www = tmp_path / "www"
    publish_to(config, "example.com", dir=str(www))
    www.mkdir()
    (www / "index.html").write_bytes(b"<p>Clinica</p>\n")
    return config, www


def _line(config: Path, text: str) -> int:
    return next(i for i, line in enumerate(config.read_text("utf-8").splitlines(), 1)
                if text in line)


def test_a_person_entry_on_a_page_of_the_website_is_refused_at_build(tmp_path: Path) -> None:
    config, www = _clinic(tmp_path, "contacto")
    (www / "contacto").mkdir()
    (www / "contacto/index.html").write_bytes(b"<h1>Contacto</h1>\n")
    res = build(BuildOptions(config=config))
    [err] = res.report.errors
    assert err.rule == "SITE-PAGE-TAKEN"
    assert (err.location.file, err.location.line) == (
        str(config), _line(config, "https://example.com/contacto"))
    assert err.message == (f"personEntry https://example.com/contacto is a page of your website "
                           f"already (contacto/index.html in {www}): publishing acap's page "
                           "there would replace it")
    assert err.hint == ("give the personEntry another address, one your website does not use "
                        "(such as https://example.com/contacto-ask); acap never replaces a "
                        "page of your website")
    assert not (config.parent / "site").exists()  # nothing was built
    assert snapshot(www)["contacto/index.html"] == b"<h1>Contacto</h1>\n"


def test_acaps_own_page_there_is_not_the_websites(tmp_path: Path) -> None:
    """Once acap has published its page, a rebuild that changes it is fine: the record of
    that publish lists it."""
    config, www = _clinic(tmp_path, "preguntar")
    do_build(config)
    res = publish(trial(config=config, hosts=("example.com",)))
    assert res.ok, report_text(res.report)
    assert (www / "preguntar/index.html").is_file()
    change(config, lambda d: d["operator"].__setitem__("name", "Clinica Dental Ejemplo"))
    do_build(config)
    again = publish(trial(config=config, hosts=("example.com",)))
    assert again.ok, report_text(again.report)
