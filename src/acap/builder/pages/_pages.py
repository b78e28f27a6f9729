"""The personEntry page (and the root and 404 pages of a host), from operator.yaml.

For every on-request skill whose ``personEntry`` is an https address on a host
acap builds, one page is written at that address (``/talk`` at ``talk/index.html``
and ``talk.html``, see :func:`html_twin`): who the operator is, what can be
asked there (the names of the on-request skills with that personEntry and what
they are, in words for people: ``forPeople``, see :mod:`acap.builder.pages._person_text`; never
their values), how to ask (``contact`` and the ``reachesStaff`` skill) and that
the operator gives this to the person who asks. What operator.yaml leaves out
is left out of the page.

Languages: ``page.languages`` (default ``[en]``) lists the page's languages;
the first is the language operator.yaml's own texts are written in and its
page is at the personEntry itself; every other language has its page at
``<personEntry>/<tag>/`` (or ``name.<tag>.html`` for a personEntry that names
an .html file), with ``hreflang`` links between all of them, and takes the
operator's texts from ``page.translations.<tag>``. acap's own words come from
:mod:`acap.builder.pages._words`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple
from urllib.parse import quote, urlsplit, urlunsplit

from markupsafe import Markup

from acap.builder.pages import (
    _csp as csp,
)
from acap.builder.pages import (
    _jsonld as jsonld,
)
from acap.builder.pages import (
    _person_text as person_text,
)
from acap.builder.pages import (
    _templating as templating,
)
from acap.builder.pages._language_tags import is_well_formed, primary_language_is_reserved
from acap.builder.pages._words import (
    REFERENCE,
    Words,
    autonym,
    direction,
    known_language,
    language_name,
    parse_words,
    words_names,
)
from acap.card import Phone, normalise_person_entry, origin_of
from acap.card import parse_phone as _parse_phone
from acap.checks import operator_country, phone_hint
from acap.errors import SitePathError, TemplateRefused
from acap.findings import Finding, Location
from acap.load import OperatorConfig, pointer_join
from acap.site import url_to_path

if TYPE_CHECKING:
    from acap.site import SiteFiles

DEFAULT_LANGUAGES = ("en",)
#: A plain email address: one @, no spaces or markup characters, a dot inside the domain
#: (:func:`is_plain_email`). Anything else is shown as text, without a mailto: link.
_EMAIL_RE = re.compile(r"^[^@\s<>\"'(),;:\\]+@(?P<domain>[^@\s<>\"'(),;:\\]+)$")


def is_plain_email(text: str) -> bool:
    """Whether ``text`` is a plain email address (see :data:`_EMAIL_RE`). The dot is looked
    for apart from the pattern: ``[^@]+\\.[^@]+`` made the engine try every dot with every
    ending, work growing with the square of the text."""
    m = _EMAIL_RE.match(text)
    return m is not None and "." in m["domain"][1:-1]


#: Telephone numbers are parsed several times per build (checks, each page): once is enough.
parse_phone = functools.lru_cache(maxsize=256)(_parse_phone)


# -- what templates receive ------------------------------------------------------------

class Text(NamedTuple):
    """A text of the operator's and the language it is written in.

    A template writes ``{{ t.value }}``; where ``t.lang`` differs from the page's
    language (a translation is missing), ``m.lang(t)`` adds ``lang="…"`` so that
    screen readers pronounce it right.
    """

    value: str
    lang: str

    def __str__(self) -> str:
        return self.value

    def __bool__(self) -> bool:
        """False for an empty text, so that ``{% if ask.description %}`` leaves it out."""
        return bool(self.value)


class Alternate(NamedTuple):
    """One language version of a page: ``lang`` tag, absolute ``url``, site ``path``,
    ``name`` (the language's own name) and whether it is the page being written."""

    lang: str
    url: str
    path: str
    name: str
    current: bool


class PageInfo(NamedTuple):
    """``page`` in templates: ``lang``, ``dir`` (ltr/rtl), ``url`` (absolute),
    ``path`` (on its host), ``alternates`` (every language version, first = default)."""

    lang: str
    dir: str
    url: str
    path: str
    alternates: tuple[Alternate, ...]


class OperatorInfo(NamedTuple):
    """``operator`` in templates: ``name``, ``website`` and ``website_href`` (the
    website when it is an http(s) URL and not the page being written, else empty:
    the operator's own home page that acap writes does not link to itself)."""

    name: str
    website: str
    website_href: str


class Skill(NamedTuple):
    """An entry of ``asks`` or ``staff``: the skill ``id``, ``name`` and ``description``
    (:class:`Text`), and for an on-request skill asked somewhere else than on this page,
    where.

    ``description`` is what the page says about the skill to the person reading it:
    the skill's ``forPeople`` text, else its description (written for agents) without
    the sentences that only say it is given on request
    (:func:`acap.builder.pages._person_text.clean_description`). It may be empty (false in
    a template's ``{% if %}``) when the description said nothing else.

    ``phone``: the :class:`~acap.card._person_entry.Phone` of a skill whose personEntry
    is a ``tel:`` number (asked by phone), else ``None``; ``elsewhere``: the address of a
    skill asked at another page (a path on this host, else the URL), else ``""``. Both
    empty: the skill is asked here.
    """

    id: str
    name: Text
    description: Text
    phone: Phone | None = None
    elsewhere: str = ""


class Contact(NamedTuple):
    """``contact`` in templates; every field is empty when operator.yaml leaves it out.

    Attributes:
        phone: :class:`~acap.card._person_entry.Phone` (``tel``: RFC 3966 global form
            for the link, ``display``: international format), or ``None``.
        email: the address as written; ``email_href`` its ``mailto:`` link
            (empty when it is not a plain address).
        address, hours: :class:`Text`, or ``None``.
        languages: names of the languages spoken, in the page's language.
    """

    phone: Phone | None
    email: str
    email_href: str
    address: Text | None
    hours: Text | None
    languages: tuple[str, ...]

    @property
    def any(self) -> bool:
        """True when there is anything to show."""
        return bool(self.phone or self.email or self.address or self.hours or self.languages)


class Entry(NamedTuple):
    """A place to ask, for the root and 404 pages: ``href``, ``label``, and the
    ``names`` (:class:`Text`) of the skills asked there."""

    href: str
    label: str
    names: tuple[Text, ...]


# -- languages and translations ----------------------------------------------------------

@dataclass
class Plan:
    """The page languages of one operator.yaml, checked.

    Attributes:
        languages: tags, the first being the language operator.yaml is written in.
        words: tag -> acap's words in it.
        translations: tag -> the ``page.translations`` block (``{}`` if none).
        findings: problems found.
    """

    languages: list[str] = field(default_factory=list)
    words: dict[str, Words] = field(default_factory=dict)
    translations: dict[str, dict[str, Any]] = field(default_factory=dict)
    findings: list[Finding] = field(default_factory=list)

    @property
    def base(self) -> str:
        """The language operator.yaml's own texts are in."""
        return self.languages[0]


def _page(cfg: OperatorConfig) -> dict[str, Any]:
    p = cfg.data.get("page")
    return p if isinstance(p, dict) else {}


def _ci_get(mapping: Mapping[str, Any], tag: str) -> tuple[str, Any] | None:
    for k, v in mapping.items():
        if str(k).lower() == tag.lower():
            return str(k), v
    return None


def plan_languages(cfg: OperatorConfig, t: templating.Templates) -> Plan:
    """Check ``page.languages`` and ``page.translations`` and find acap's words for each.

    Errors: a tag that is not a language tag, a tag listed twice, a language acap
    has no words for (and no ``templates/words/<tag>.yaml``), a translation for a
    language not listed, a translation of a skill id that does not exist. When
    there is none, ``languages`` holds at least one tag.
    """
    page = _page(cfg)
    plan = Plan()
    raw = page.get("languages") or list(DEFAULT_LANGUAGES)
    seen: set[str] = set()
    for i, tag in enumerate(raw):
        loc = cfg.at(f"/page/languages/{i}") if "languages" in page else cfg.at("", key=True)
        tag = str(tag)
        problem = tag_problem(tag)
        if problem:
            plan.findings.append(Finding("PAGE-LANGUAGE", "error", problem, loc,
                                         "write a language code: en, fr, de, or with a "
                                         "country: de-CH, pt-BR"))
            continue
        if tag.lower() in seen:
            plan.findings.append(Finding("PAGE-LANGUAGE", "error", f"'{tag}' is listed twice",
                                         loc, "list each language once"))
            continue
        seen.add(tag.lower())
        words, found = _words_for(cfg, t, tag, loc)
        plan.findings += found
        if words is not None:
            plan.languages.append(tag)
            plan.words[tag] = words
    translations = page.get("translations") or {}
    for key in translations:
        if str(key).lower() not in seen:
            plan.findings.append(Finding(
                "PAGE-LANGUAGE", "error",
                f"page.translations has '{key}', which page.languages does not list",
                cfg.at(pointer_join("/page/translations", str(key)), key=True),
                f"add {key} to page.languages, or remove its translation"))
    skill_ids = [str(s.get("id")) for _, s in cfg.skills()]
    for tag in plan.languages:
        hit = _ci_get(translations, tag)
        block = hit[1] if hit and isinstance(hit[1], dict) else {}
        plan.translations[tag] = block
        if hit:
            for sid in block.get("skills") or {}:
                if sid not in skill_ids:
                    import difflib  # only for a did-you-mean: not at start-up

                    near = difflib.get_close_matches(str(sid), skill_ids, n=1, cutoff=0.6)
                    plan.findings.append(Finding(
                        "PAGE-TRANSLATION", "error", f"no skill has the id '{sid}'",
                        cfg.at(pointer_join(f"/page/translations/{hit[0]}/skills", str(sid)),
                               key=True),
                        f"did you mean '{near[0]}'?" if near else
                        "use the id of a skill under skills:"))
    return plan


def tag_problem(tag: str) -> str | None:
    """Why ``tag`` is no language tag (BCP 47, RFC 5646 §2.1), or ``None`` when it is one.

    A private-use tag (``x-klingon``) and a tag with extensions are language tags;
    a well-formed tag whose language subtag has 4 to 8 letters (``english``) names no
    language.
    """

    if not is_well_formed(tag):
        return f"'{tag}' is not a language tag"
    if primary_language_is_reserved(tag):
        return (f"'{tag}' is not a language tag in use: a language is named by 2 or 3 "
                "letters")
    return None


def _words_for(cfg: OperatorConfig, t: templating.Templates, tag: str, loc: Location
               ) -> tuple[Words | None, list[Finding]]:
    ref_src = templating.source(t, f"acap/words/{REFERENCE}.yaml")
    assert ref_src is not None, "acap ships words/en.yaml"
    ref = parse_words(REFERENCE, ref_src.text, "acap/templates/words/en.yaml", None)
    assert ref.words is not None, "acap's own words/en.yaml is valid"
    for name in words_names(tag):
        try:
            src = templating.source(t, name)
        except TemplateRefused as exc:
            return None, [templating.link_finding(t, exc, cfg.loaded.file)]
        if src is None:
            continue
        shown = templating.display_name(t, src.filename, cfg.loaded.file)
        res = parse_words(tag, src.text, shown, ref.words.texts)
        return res.words, list(res.findings)
    lang = language_name(tag, "en")
    which = f"in {lang} ({tag})" if lang else f"for the language {tag}"
    return None, [Finding(
        "PAGE-WORDS", "error", f"acap has no words {which} for the page yet", loc,
        f"run `acap words {tag}`: it writes templates/words/{tag}.yaml next to "
        f"{cfg.path.name}, acap's words to translate into {lang or tag}")]


# -- the pages ---------------------------------------------------------------------------

@dataclass
class EntryPage:
    """One personEntry address acap writes a page for, and the skills asked there."""

    url: str
    rel: str
    skills: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    @property
    def host(self) -> str:
        """The host the page is published on."""
        return (urlsplit(self.url).hostname or "").lower()


def html_twin(url: str) -> str | None:
    """The second file a page at ``url`` is written to, or ``None``.

    A personEntry with neither a trailing slash nor a file name
    (``https://ask.example.com/talk``) is written at ``talk/index.html`` and, the
    same bytes, at ``talk.html``: GitHub Pages answers ``/talk`` from ``talk.html``
    with a 200 when that file exists, where a folder alone gets a 301 to ``/talk/``
    (measured for every case by github.com/slorber/trailing-slash-guide,
    docs/Hosting-Providers.md, and github.com/simonw/playing-with-github-pages);
    Netlify, Cloudflare Pages and Vercel answer ``/talk`` without a redirect too,
    and ``/talk/`` still finds ``talk/index.html``. The page's links are absolute
    paths, so they work from either address.

    ``https://ask.example.com/talk`` -> ``ask.example.com/talk.html``; ``None`` for
    ``/talk/``, ``/``, ``/talk.html``.

    Raises:
        SitePathError: see :func:`acap.site._files.url_to_path`.
    """
    rel = url_to_path(url)
    path = urlsplit(url).path
    if not path.strip("/") or path.endswith("/") or not rel.endswith("/index.html"):
        return None
    return rel[: -len("/index.html")] + ".html"


def entry_pages(cfg: OperatorConfig) -> list[EntryPage]:
    """Each https personEntry on a host acap builds (``cfg.hosts``), once, with its
    on-request skills in operator.yaml order. Addresses that are not https, are on
    another host, or cannot be a file (checked elsewhere) are skipped. Two addresses
    written to one file (``/talk`` and ``/talk/``; ``/talk`` and ``/talk.html``, see
    :func:`html_twin`) are one page, at the first one's address."""
    hosts = cfg.hosts
    pages: dict[str, EntryPage] = {}
    written_at: dict[str, str] = {}  # every file a page is written to -> its key in pages
    for ptr, s in cfg.on_request_skills():
        pe = s.get("personEntry")
        if not isinstance(pe, str):
            continue
        u = urlsplit(normalise_person_entry(pe))
        if u.scheme != "https" or not u.hostname or u.hostname.lower() not in hosts:
            continue
        url = urlunsplit(("https", u.netloc.lower(), u.path or "/", "", ""))
        try:
            rel = url_to_path(url)
        except SitePathError:
            continue
        if not rel.endswith((".html", ".htm")):
            continue  # names another kind of file: see not_a_page_findings
        twin = html_twin(url)
        key = written_at.get(rel) or (written_at.get(twin) if twin else None) or rel
        if key not in pages:
            pages[key] = EntryPage(url, rel)
            written_at.update({p: key for p in (rel, twin) if p})
        pages[key].skills.append((ptr, s))
    return list(pages.values())


def not_a_page_findings(cfg: OperatorConfig) -> Iterator[Finding]:
    """An https personEntry on a host acap builds that names a file other than a web
    page (``/prices.pdf``): acap writes no page there, and says so."""
    hosts = cfg.hosts
    for ptr, s in cfg.on_request_skills():
        pe = s.get("personEntry")
        if not isinstance(pe, str):
            continue
        try:
            u = urlsplit(normalise_person_entry(pe))
        except ValueError:
            continue  # URL-FORM's
        if u.scheme != "https" or (u.hostname or "").lower() not in hosts:
            continue
        try:
            rel = url_to_path(urlunsplit(("https", u.netloc, u.path or "/", "", "")))
        except SitePathError:
            continue
        if not rel.endswith((".html", ".htm")):
            yield Finding("PAGE-PATH", "warning",
                          f"acap writes no page at {pe}: it names a file that is not a web page",
                          cfg.at(ptr + "/personEntry"),
                          "end the address with / or .html, or with no file name "
                          "(https://ask.example.com/talk)")


def page_findings(cfg: OperatorConfig) -> list[Finding]:
    """What the pages' checks judge from operator.yaml alone, before anything is built
    (:func:`contact_findings`, :func:`not_a_page_findings`, :func:`not_built_findings`):
    said in the same run as the requirement checks, not after the card is built."""
    return [*contact_findings(cfg), *not_a_page_findings(cfg), *not_built_findings(cfg)]


def language_errors(cfg: OperatorConfig, *, tenant: bool) -> list[Finding]:
    """The errors of :func:`plan_languages` (``page.languages``, ``page.translations``,
    the words files of ``templates/words/``), for a build that another error already
    stops before its page step: said in the same run, so that the operator fixes every
    file at once. ``tenant``: the templates are a batch tenant's (sandboxed as in the
    page step)."""
    t = templating.templates(templating.override_dir_for(cfg.base_dir), tenant=tenant)
    return [f for f in plan_languages(cfg, t).findings if f.level == "error"]


def not_built_findings(cfg: OperatorConfig) -> Iterator[Finding]:
    """``PAGE-NOT-BUILT`` (warning): an https personEntry on an origin the operator
    declares as its own (``ownOrigins``, or operator.website when the card is on another
    host: ``cardHost``) but on a host acap does not build (not in ``hosts``, not the
    card's): acap writes no page there, yet the signed card sends
    people to it. Said once per address, at its first personEntry, so that the operator
    makes sure the page exists (``acap check URL --live`` fetches it once published) or
    lets acap build it (``hosts:``). A personEntry on an origin not declared at all is
    OR-3.4's error, not this."""
    hosts = cfg.hosts
    own = {origin_of(o) for o in cfg.own_origins}
    seen: set[str] = set()
    for ptr, s in cfg.on_request_skills():
        pe = s.get("personEntry")
        if not isinstance(pe, str):
            continue
        value = normalise_person_entry(pe)
        try:
            u = urlsplit(value)
            host = (u.hostname or "").lower()
        except ValueError:
            continue  # URL-FORM's
        if u.scheme != "https" or not host or host in hosts or value in seen \
                or origin_of(value) not in own:
            continue
        seen.add(value)
        add = (f"add {host}: {{}} under hosts:" if isinstance(cfg.data.get("hosts"), dict)
               else f"add hosts: {{{host}: {{}}}} at the top level")
        declared = ("your website's host (operator.website)" if host == cfg.website_host
                    else "one of your origins (ownOrigins)")
        yield Finding("PAGE-NOT-BUILT", "warning",
                      f"acap builds no page at {value}: {host} is {declared}, not a host "
                      "acap builds, so the signed card sends people to a page you must "
                      "provide yourself", cfg.at(ptr + "/personEntry"),
                      f"make sure {value} exists and is where a person can ask (once it is "
                      f"published, acap check {cfg.card_url} --live fetches it); if acap "
                      f"should build that page, {add} and publish {host} too")


def language_url(url: str, tag: str) -> str:
    """Where the ``tag`` version of the page at ``url`` lives.

    ``https://ask.example.com/talk`` -> ``https://ask.example.com/talk/fr/``;
    ``https://ask.example.com/talk.html`` -> ``https://ask.example.com/talk.fr.html``.
    """
    u = urlsplit(url)
    path = u.path or "/"
    slug = tag.lower()
    last = path.rsplit("/", 1)[-1]
    if last and "." in last and not last.startswith("."):
        stem, ext = last.rsplit(".", 1)
        new = f"{path[: -len(last)]}{stem}.{slug}.{ext}"
    else:
        new = f"{path.rstrip('/')}/{slug}/"
    return urlunsplit((u.scheme, u.netloc, new, "", ""))


class _Texts:
    """The operator's texts in one page language, falling back to the base language."""

    def __init__(self, cfg: OperatorConfig, plan: Plan, lang: str) -> None:
        self.cfg, self.plan, self.lang = cfg, plan, lang
        self.block = plan.translations.get(lang, {}) if lang != plan.base else {}

    def get(self, key: str, base_value: Any) -> Text | None:
        if not isinstance(base_value, str) or not base_value.strip():
            return None
        value = self.block.get(key)
        if isinstance(value, str) and value.strip():
            return Text(value.strip(), self.lang)
        return Text(base_value.strip(), self.plan.base)

    def skill(self, s: dict[str, Any]) -> Skill:
        """The skill as this language's page shows it. Its text, first found of: the
        translated ``forPeople``, the translated description (cleaned), the skill's own
        ``forPeople``, its description (cleaned)."""
        tr = (self.block.get("skills") or {}).get(str(s.get("id"))) or {}
        name = tr.get("name")
        return Skill(
            str(s.get("id")),
            Text(name.strip(), self.lang) if isinstance(name, str) and name.strip()
            else Text(str(s.get("name", "")).strip(), self.plan.base),
            _person_text(tr, self.lang) or _person_text(s, self.plan.base)
            or Text("", self.lang))


def _blank(value: Any) -> bool:
    return not isinstance(value, str) or not value.strip()


def _person_text(block: Mapping[str, Any], lang: str) -> Text | None:
    """``forPeople`` of a skill (or of its translation), else its cleaned
    ``description``; ``None`` when it has neither."""
    if not _blank(block.get("forPeople")):
        return Text(" ".join(str(block["forPeople"]).split()), lang)
    if not _blank(block.get("description")):
        return Text(person_text.clean_description(str(block["description"])), lang)
    return None


def _same_page(a: str, b: str) -> bool:
    """Whether two http(s) URLs name the same page: scheme, query, fragment, a final
    ``index.html`` and a trailing slash aside (``http://Example.com`` is
    ``https://example.com/index.html``)."""
    def key(url: str) -> tuple[str, str]:
        u = urlsplit(url)
        path = u.path[: -len("index.html")] if u.path.endswith("/index.html") else u.path
        return (u.netloc.lower(), path.rstrip("/"))
    return key(a) == key(b)


def _operator(cfg: OperatorConfig, page_url: str) -> OperatorInfo:
    op = cfg.data.get("operator") or {}
    website = str(op.get("website", "")).strip()
    href = website if urlsplit(website).scheme in ("https", "http") and \
        not _same_page(website, page_url) else ""
    return OperatorInfo(str(op.get("name", "")).strip(), website, href)


def _contact(cfg: OperatorConfig, texts: _Texts, lang: str) -> Contact:
    c = cfg.data.get("contact") or {}
    phone = parse_phone(c["phone"]) if isinstance(c.get("phone"), str) else None
    email = str(c.get("email") or "").strip()
    href = f"mailto:{quote(email, safe='@.+-_')}" if is_plain_email(email) else ""
    names = tuple(language_name(str(tag), lang) or str(tag) for tag in c.get("languages") or ())
    return Contact(phone, email, href, texts.get("address", c.get("address")),
                   texts.get("hours", c.get("hours")), names)


def _staff(cfg: OperatorConfig, texts: _Texts) -> tuple[Skill, ...]:
    return tuple(texts.skill(s) for _, s in cfg.skills() if s.get("reachesStaff") is True)


def contact_findings(cfg: OperatorConfig) -> Iterator[Finding]:
    """``contact.phone`` must be a number in international form (it becomes a ``tel:``
    link); a ``contact.email`` that is not a plain address, and ``contact.languages``
    that are not language tags, are warnings. Read from a file of any shape (these run
    with the requirement checks, on a file with schema errors too: a value of another
    type is the schema's to report)."""
    c = cfg.data.get("contact")
    if not isinstance(c, dict):
        return
    if isinstance(c.get("phone"), str) and parse_phone(c["phone"]) is None:
        yield Finding("PAGE-PHONE", "error",
                      f"contact.phone '{c['phone']}' is not a telephone number in "
                      "international form", cfg.at("/contact/phone"),
                      phone_hint(c["phone"], operator_country(cfg.data)))
    email = c.get("email")
    if isinstance(email, str) and not is_plain_email(email.strip()):
        yield Finding("PAGE-EMAIL", "warning",
                      f"contact.email '{email}' is not a plain email address; the page shows "
                      "it as text, without a link", cfg.at("/contact/email"),
                      "write the address alone, e.g. ask@example.com")
    languages = c.get("languages")
    for i, tag in enumerate(languages if isinstance(languages, list) else ()):
        if not isinstance(tag, str):
            continue
        problem = tag_problem(tag)
        if problem is None and not known_language(str(tag)):
            problem = f"acap knows no name for the language '{tag}'"
        if problem:
            yield Finding("PAGE-LANGUAGE", "warning", f"contact.languages: {problem}; the page "
                          "shows it as written", cfg.at(f"/contact/languages/{i}"),
                          "write a language code: en, fr, cy, or with a country: de-CH")


def _translation_warnings(cfg: OperatorConfig, plan: Plan, shown: list[dict[str, Any]]
                          ) -> Iterator[Finding]:
    """A page language whose page would show some of the operator's texts in the base
    language: one warning per language, naming what is missing."""
    page = _page(cfg)
    c = cfg.data.get("contact") or {}
    for i, lang in enumerate(plan.languages[1:], start=1):
        block = plan.translations.get(lang, {})
        missing: list[str] = []
        if page.get("intro") and not block.get("intro"):
            missing.append("intro")
        if c.get("hours") and not block.get("hours"):
            missing.append("hours")
        tr_skills = block.get("skills") or {}
        for s in shown:
            tr = tr_skills.get(str(s.get("id"))) or {}
            if _blank(tr.get("name")):
                missing.append(f"skills.{s.get('id')}.name")
            if _person_text(s, plan.base) and _person_text(tr, lang) is None:
                key = "description" if _blank(s.get("forPeople")) else "forPeople"
                missing.append(f"skills.{s.get('id')}.{key}")
        if not missing:
            continue
        base = language_name(plan.base, "en") or plan.base
        hit = _ci_get(page.get("translations") or {}, lang)
        loc = cfg.at(pointer_join("/page/translations", hit[0]), key=True) if hit else \
            cfg.at(f"/page/languages/{i}")
        name = language_name(lang, "en") or lang
        yield Finding("PAGE-TRANSLATION", "warning",
                      f"the {lang} page shows {', '.join(missing)} in {base}", loc,
                      f"add them under page: translations:, in {name}, for example: "
                      f"{translation_example(lang, missing)}")


def translation_example(lang: str, missing: list[str]) -> str:
    """The block of ``page.translations`` that would give ``lang`` what ``missing``
    names (``intro``, ``hours``, ``skills.<id>.name``, ``skills.<id>.description``),
    as one line of YAML with ``...`` for each text: ``de: {intro: ..., skills:
    {quotes: {name: ...}}}``. A skill id that YAML would not read as plain text is
    quoted (JSON's quoting, which YAML reads)."""
    top: list[str] = []
    skills: dict[str, list[str]] = {}
    for item in missing:
        if item.startswith("skills."):
            sid, key = item[len("skills."):].rsplit(".", 1)
            skills.setdefault(sid, []).append(f"{key}: ...")
        else:
            top.append(f"{item}: ...")
    if skills:
        top.append("skills: {" + ", ".join(
            f"{_yaml_key(sid)}: {{{', '.join(keys)}}}" for sid, keys in skills.items()) + "}")
    return f"{_yaml_key(lang)}: {{{', '.join(top)}}}"


def _yaml_key(text: str) -> str:
    """``text`` as a YAML key in a flow mapping: as it is when it is letters, digits and
    ``-``/``_`` (a skill id, a language tag), else quoted."""
    import json  # start-up: only for a translation hint

    return text if re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", text) else json.dumps(text)


@dataclass
class Rendered:
    """Pages rendered for one operator: ``files`` holds ``(relative path, url or None,
    bytes)``; one url may be written at two paths (:func:`html_twin`)."""

    files: list[tuple[str, str | None, bytes]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)


def _context(cfg: OperatorConfig, plan: Plan, lang: str, page: PageInfo,
             asks: tuple[Skill, ...], entries: tuple[Entry, ...]) -> dict[str, Any]:
    texts = _Texts(cfg, plan, lang)
    op = _operator(cfg, page.url)
    contact = _contact(cfg, texts, lang)
    intro = texts.get("intro", _page(cfg).get("intro"))
    c = cfg.data.get("contact") or {}
    website = op.website if urlsplit(op.website).scheme in ("https", "http") else None
    data = jsonld.organization(
        name=op.name, website=website, url=page.url,
        phone=contact.phone.display if contact.phone else None, email=contact.email or None,
        address=contact.address.value if contact.address else None,
        hours=contact.hours.value if contact.hours else None,
        languages=[str(x) for x in c.get("languages") or ()])
    return {"page": page, "operator": op, "intro": intro, "asks": asks,
            "staff": _staff(cfg, texts), "contact": contact, "entries": entries,
            "words": plan.words[lang], "jsonld": jsonld.script_text(data)}


def render_page(cfg: OperatorConfig, t: templating.Templates, name: str,
                context: dict[str, Any], host: str) -> tuple[str | None, list[Finding]]:
    """Render ``page.css`` and then template ``name`` with the style and its
    Content-Security-Policy added to ``context`` (as ``style`` and ``csp``), and
    audit the result (:mod:`acap.builder.pages._audit`).

    Returns:
        ``(html, findings)``; ``html`` is ``None`` when there is an error.
    """

    file = cfg.loaded.file
    css, found = templating.render(t, "page.css", {**context, "style": "", "csp": ""}, file)
    if css is None:
        return None, found
    full = {**context, "style": Markup(css), "csp": csp.content_security_policy([css])}
    html, found = templating.render(t, name, full, file)
    if html is None:
        return None, found
    src = templating.source(t, name)
    shown = templating.display_name(t, src.filename, file) if src else name
    # The audit guards what acap's own tests cannot see: an operator's override
    # templates. acap's templates are audited by the test suite, and operator text
    # reaches them only autoescaped, so without overrides there is nothing to find.
    if t.override_dir is None:
        return html, []
    # start-up: the page audit (html.parser) only for an operator's own templates
    from acap.builder.pages import _audit as audit

    problems = audit.audit(html, host)
    return (None if problems else html), [
        Finding(audit.RULE, "error", f"{p.message} (line {p.line} of the page {name} writes)",
                Location(shown), "acap's pages are the same for everyone and load nothing "
                "from elsewhere (OR-3.8); see docs/person-entry-page.md in acap's repository "
                "('Same for everyone')")
        for p in problems]


def person_entry_pages(cfg: OperatorConfig, t: templating.Templates) -> Rendered:
    """Render every personEntry page in every page language.

    Returns:
        :class:`Rendered` with the pages (``url`` set: they are addressed by URL)
        and every finding (languages, words, contact, templates, audit).
    """
    out = Rendered()
    plan = plan_languages(cfg, t)
    out.findings += plan.findings
    if any(f.level == "error" for f in out.findings):
        return out
    pages = entry_pages(cfg)
    shown = [s for _, s in cfg.on_request_skills()]  # every page lists them all
    shown += [s for _, s in cfg.skills() if s.get("reachesStaff") is True]
    shown = list({id(s): s for s in shown}.values())
    out.findings += _translation_warnings(cfg, plan, shown if pages else [])
    c = cfg.data.get("contact") or {}
    for ep in pages:
        if not (c.get("phone") or c.get("email") or c.get("address")) and \
                not any(s.get("reachesStaff") is True for _, s in cfg.skills()):
            out.findings.append(Finding(
                "PAGE-CONTACT", "warning", f"the page at {ep.url} says what to ask but not how",
                cfg.at(ep.skills[0][0] + "/personEntry"),
                "add contact: with a phone, email or address, or a skill with "
                "reachesStaff: true"))
        urls = [ep.url] + [language_url(ep.url, tag) for tag in plan.languages[1:]]
        for lang, url in zip(plan.languages, urls, strict=True):
            alternates = tuple(
                Alternate(other, u, urlsplit(u).path or "/", autonym(other) or other,
                          other == lang)
                for other, u in zip(plan.languages, urls, strict=True))
            info = PageInfo(lang, direction(lang), url, urlsplit(url).path or "/", alternates)
            asks = _asks(cfg, _Texts(cfg, plan, lang), ep)
            ctx = _context(cfg, plan, lang, info, asks, ())
            html, found = render_page(cfg, t, "person-entry.html", ctx, ep.host)
            out.findings += found
            if html is not None:
                data = html.encode("utf-8")
                twin = html_twin(url)
                out.files += [(rel, url, data) for rel in (url_to_path(url), twin) if rel]
    return out


def _asks(cfg: OperatorConfig, texts: _Texts, page: EntryPage) -> tuple[Skill, ...]:
    """What the personEntry ``page`` lists: every on-request skill of the operator, in
    operator.yaml's order, so that a person who came to ask one thing learns what else
    they can ask and where. A skill asked on this page is plain; one asked by phone
    carries its number (``phone``); one asked at another page carries that address
    (``elsewhere``). A personEntry that is neither (reported by the checks) is left out."""
    here = {id(s) for _, s in page.skills}
    out = []
    for _, s in cfg.on_request_skills():
        skill = texts.skill(s)
        pe = s.get("personEntry")
        if id(s) in here:
            out.append(skill)
        elif isinstance(pe, str):
            value = normalise_person_entry(pe)
            u = urlsplit(value)
            if u.scheme == "tel" and (phone := parse_phone(value)) is not None:
                out.append(skill._replace(phone=phone))
            elif u.scheme == "https" and u.hostname:
                same = u.hostname.lower() == page.host
                out.append(skill._replace(elsewhere=(u.path or "/") if same else value))
    return tuple(out)


def _entries(cfg: OperatorConfig, plan: Plan, host: str) -> tuple[Entry, ...]:
    """Every place to ask (https personEntry pages and telephone numbers), for ``host``."""
    texts = _Texts(cfg, plan, plan.base)
    words = plan.words[plan.base]
    found: dict[str, tuple[str, list[Text]]] = {}
    for _, s in cfg.on_request_skills():
        pe = s.get("personEntry")
        if not isinstance(pe, str):
            continue
        value = normalise_person_entry(pe)
        u = urlsplit(value)
        if u.scheme == "https" and u.hostname:
            href = (u.path or "/") if u.hostname.lower() == host else value
            label = str(words("askLink"))
        elif u.scheme == "tel":
            phone = parse_phone(value)
            if phone is None:
                continue
            href, label = phone.tel, phone.display
        else:
            continue
        found.setdefault(href, (label, []))[1].append(texts.skill(s).name)
    return tuple(Entry(h, label, tuple(names)) for h, (label, names) in found.items())


def host_pages(cfg: OperatorConfig, t: templating.Templates, host: str, *, index: bool
               ) -> Rendered:
    """The root ``index.html`` (when ``index``) and ``404.html`` of an operator's host,
    in the first page language; addressed by path (``<host>/404.html``)."""
    out = Rendered()
    plan = plan_languages(cfg, t)
    if any(f.level == "error" for f in plan.findings):
        return out  # reported by the personEntry step
    lang = plan.base
    entries = _entries(cfg, plan, host)
    for name, rel in (("index.html", f"{host}/index.html"), ("404.html", f"{host}/404.html")):
        if name == "index.html" and not index:
            continue
        url = f"https://{host}/" if name == "index.html" else f"https://{host}/404.html"
        path = urlsplit(url).path
        info = PageInfo(lang, direction(lang), url, path,
                        (Alternate(lang, url, path, autonym(lang) or lang, True),))
        ctx = _context(cfg, plan, lang, info, (), entries)
        html, found = render_page(cfg, t, name, ctx, host)
        out.findings += found
        if html is not None:
            out.files.append((rel, None, html.encode("utf-8")))
    return out


def add_files(files: SiteFiles, rendered: Rendered) -> None:
    """Add rendered pages to the build's files, at their paths, with their URLs.

    Raises:
        SitePathError: two different files for one path.
    """
    for rel, url, data in rendered.files:
        files.add_path(rel, data, url)
