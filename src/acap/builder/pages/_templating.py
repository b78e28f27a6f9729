"""The Jinja2 environment for acap's pages, and template errors as findings.

One environment per override folder, built once per process and cached
(a batch build of many operators that share no ``templates/`` folder compiles
each template once). The loader looks, in order, in:
1. the operator's ``templates/`` folder next to operator.yaml, when it exists
   (overrides by name, like MkDocs' ``custom_dir``);
2. acap's own templates under the prefix ``acap/``, so that an override can
   extend the default it replaces: ``{% extends "acap/person-entry.html" %}``;
3. acap's own templates (package data, ``acap/templates/``).

Every template, acap's own and the operator's, is rendered in Jinja2's sandbox
(``ImmutableSandboxedEnvironment``, bounded in size and time by
:mod:`acap.builder.pages._bounded`) with none of Jinja2's globals: a template sees
only the names acap passes in (plain data), cannot reach Python objects or the file
system, and reads files only through the loader, which judges each file first (see
:func:`_confined_loader`). Autoescaping is on for every template whatever its name,
and names a template uses but acap does not give it are errors (``StrictUndefined``):
such a template fails the build with a ``PAGE-TEMPLATE`` finding naming the
template file, its line, and the name.

jinja2 is imported inside the functions here, never at module level, so that
``acap --help`` does not pay for it.
"""

from __future__ import annotations

import contextlib
import os
import traceback
from collections.abc import Iterator, Mapping
from contextvars import ContextVar
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

from jinja2 import (
    ChoiceLoader,
    FileSystemBytecodeCache,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateNotFound,
    TemplateSyntaxError,
    UndefinedError,
)
from jinja2.exceptions import SecurityError
from jinja2.loaders import split_template_path

from acap._package import package_path
from acap.builder.pages._bounded import (
    CODE_VERSION,
    PAGE_LIMIT,
    BoundedSandbox,
    Meter,
    TemplateLimit,
    metered,
)
from acap.errors import FileRefused, TemplateLinkOutside, TemplateRefused
from acap.findings import Finding, Location
from acap.load import Root, read_file

RULE = "PAGE-TEMPLATE"


#: The largest template or words file acap reads from an operator's templates/ (bytes).
TEMPLATE_LIMIT = 1024 * 1024


def _confined_loader(folder: Path, tenant: bool = False) -> Any:
    """A ``jinja2.FileSystemLoader`` for the operator's templates/ that judges a file
    before it reads it: its real path must lie inside the folder
    (:class:`TemplateLinkOutside`: Jinja2 follows symbolic links and has no option
    against it), and it is read by :func:`acap.load.read_file` within the project
    folder (templates/'s parent), links followed only inside it: a regular file of at
    most :data:`TEMPLATE_LIMIT` bytes (:class:`TemplateRefused`: a FIFO would hang the
    build, a link to ``/dev/zero`` grow without bound), and a link swapped in after the
    check is refused, never followed. For a batch ``tenant``, a file with other names
    (hard links) is refused too: it may be another tenant's key, and no path check sees
    that. A folder under a template's name is no template (as Jinja2 has it)."""
    root = os.path.realpath(folder)
    project = Root(folder.parent, "the project folder", "inside")

    class Confined(FileSystemLoader):
        def get_source(self, environment: Any, template: str) -> Any:
            filename = os.path.join(str(folder), *split_template_path(template))
            if not os.path.lexists(filename) or os.path.isdir(filename):
                raise TemplateNotFound(template)
            real = os.path.realpath(filename)
            if not (real == root or real.startswith(root + os.sep)):
                raise TemplateLinkOutside(template, filename)
            try:
                data = read_file(filename, project, TEMPLATE_LIMIT, one_name=tenant)
            except FileNotFoundError as exc:
                raise TemplateNotFound(template) from exc
            except FileRefused as exc:
                if exc.outside:
                    raise TemplateLinkOutside(template, filename) from exc
                if not os.path.exists(filename):  # a link to nothing: no template
                    raise TemplateNotFound(template) from exc
                raise TemplateRefused(template, filename, exc.reason) from exc
            mtime = os.path.getmtime(filename)

            def uptodate() -> bool:
                try:
                    return os.path.getmtime(filename) == mtime
                except OSError:
                    return False

            return data.decode(self.encoding), os.path.normpath(filename), uptodate

    return Confined(str(folder))


NAMES_HINT = ("the names a template can use are listed in docs/templates.md in acap's "
              "repository ('What a template receives')")


class Templates(NamedTuple):
    """A compiled environment and where its templates come from.

    Attributes:
        env: the ``jinja2.Environment``.
        override_dir: the operator's templates folder (absolute), or ``None``.
        package_dir: acap's own templates folder.
    """

    env: Any
    override_dir: Path | None
    package_dir: Path


def package_templates_dir() -> Path:
    """acap's default templates folder (package data)."""
    return package_path("templates")


@cache
def templates(override_dir: Path | None, tenant: bool = False) -> Templates:
    """The environment for an override folder (``None``: acap's templates only);
    ``tenant``: the folder is a batch tenant's (see :func:`_confined_loader`).

    Built once per folder per process; templates are compiled on first use and
    kept (Jinja2 checks the file's modification time, so an edited override is
    picked up by a long-running process such as ``acap serve``).
    """

    # acap's templates by path (see acap._package), which is what PackageLoader would
    # find for an installed acap, without its importlib.resources lookup.
    default = FileSystemLoader(str(package_templates_dir()))
    loaders: list[Any] = []
    if override_dir is not None:
        loaders.append(_confined_loader(override_dir, tenant))
    loaders += [PrefixLoader({"acap": default}), default]
    # Always the sandbox, for acap's own templates too: an operator's template is
    # hostile input on a hosting platform (issue 12), and the sandbox is what keeps
    # it from Python objects (lipsum.__globals__ ...), the file system and other
    # tenants. Immutable: nothing a template is given can be changed by it. Bounded:
    # nothing it does may take too long or make too much (attacker trial, HIGH 3).
    env = BoundedSandbox(
        loader=ChoiceLoader(loaders),
        bytecode_cache=_bytecode_cache(),
        autoescape=True,  # every template, whatever its file name
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        auto_reload=True,
    )
    # Only the names acap passes in: none of Jinja2's globals (range, dict, lipsum,
    # cycler, joiner, namespace), so a template's names are exactly those listed in
    # docs/templates.md.
    env.globals.clear()
    return Templates(env, override_dir, package_templates_dir())


def _bytecode_cache() -> Any:
    """Jinja2's own on-disk cache of compiled templates (in a private folder of the
    system's temp directory, keyed on the template's name and checked against its
    source), so that a one-off ``acap build`` does not recompile the templates each
    time (about 30 ms). ``None`` when that folder cannot be made; writing into it
    never fails a build."""

    class _Quiet(FileSystemBytecodeCache):
        def dump_bytecode(self, bucket: Any) -> None:
            with contextlib.suppress(OSError):  # read-only temp: compile again next time
                super().dump_bytecode(bucket)

    try:
        # Its own file names: code compiled for an environment without the sandbox or
        # its bounds (an older acap) differs (calls, loops and ~ are not routed through
        # them), and must never be loaded into this one; CODE_VERSION names the code
        # generator's routing (Jinja2 keys its cache on the template's source alone).
        return _Quiet(pattern=f"__acap_bounded_{CODE_VERSION}_%s.cache")
    except (OSError, RuntimeError):
        return None


def override_dir_for(base_dir: Path) -> Path | None:
    """``templates/`` next to operator.yaml, absolute, if it is a folder."""
    d = (base_dir / "templates").absolute()
    return d if d.is_dir() else None


class Source(NamedTuple):
    """A template file's text as the loader finds it."""

    text: str
    filename: str


def source(t: Templates, name: str) -> Source | None:
    """The text of a file the loader finds under ``name`` (override first), or ``None``.

    Raises:
        TemplateRefused: the operator's file is a link out of templates/, or not a
            regular file of bounded size (see :func:`link_finding`).
    """

    try:
        text, filename, _ = t.env.loader.get_source(t.env, name)
    except TemplateNotFound:
        return None
    return Source(text, filename or name)


def display_name(t: Templates, filename: str, operator_file: str) -> str:
    """How findings name a template file.

    An override is named as the user would find it (``templates/page.html``
    beside ``operator.yaml`` as the user named it); a built-in one as
    ``acap/templates/<name>``.
    """
    p = Path(filename)
    if t.override_dir is not None and p.is_relative_to(t.override_dir):
        return str(Path(operator_file).parent / "templates" / p.relative_to(t.override_dir))
    if p.is_relative_to(t.package_dir):
        return f"acap/templates/{p.relative_to(t.package_dir).as_posix()}"
    return filename


def _template_frame(t: Templates, exc: BaseException) -> tuple[str, int] | None:
    """The innermost traceback frame inside a template file: (filename, line)."""
    found = None
    for frame in traceback.extract_tb(exc.__traceback__):
        p = Path(frame.filename)
        if (t.override_dir is not None and p.is_relative_to(t.override_dir)) or \
                p.is_relative_to(t.package_dir):
            found = (frame.filename, frame.lineno or 0)
    return found


def _frame_location(t: Templates, exc: BaseException, name: str, operator_file: str
                    ) -> Location:
    """Where in a template ``exc`` was raised (its file as shown, and line), else the
    template ``name`` being rendered."""
    where = _template_frame(t, exc)
    return Location(display_name(t, where[0], operator_file), where[1]) if where else \
        Location(name)


def link_finding(t: Templates, exc: TemplateRefused, operator_file: str) -> Finding:
    """The ``PAGE-TEMPLATE`` error for a link out of templates/, naming the link (never
    what it points at: that may be a key), or for a file that is not a regular file of
    bounded size."""
    if not isinstance(exc, TemplateLinkOutside):
        shown = display_name(t, exc.filename, operator_file)
        return Finding(RULE, "error", f"{shown}: {exc}; acap does not read it",
                       Location(shown), "put the template itself in templates/, as a plain "
                       "file of at most 1 MiB (a copy, not a link)")
    return Finding(RULE, "error", f"{display_name(t, exc.filename, operator_file)} is a "
                   "symbolic link to a file outside the templates folder; acap does not "
                   "follow it (what it points at would be published)",
                   Location(display_name(t, exc.filename, operator_file)),
                   "put a copy of the template itself in templates/ (never a key or "
                   "another project's file), or remove the link")


LIMIT_HINT = ("a page is at most 1 MiB and its templates render in a few seconds: make "
              "fewer repeats, shorter loops and narrower widths (see docs/templates.md in "
              "acap's repository, 'Limits')")

_meter: ContextVar[Meter | None] = ContextVar("acap_operator_meter", default=None)


@contextlib.contextmanager
def operator_limits(meter: Meter) -> Iterator[None]:
    """Render every page of one operator inside the ``with`` under one ``meter`` (one
    deadline and one total for all its pages: see :mod:`acap.builder.pages._bounded`);
    without it each :func:`render` gets its own."""
    token = _meter.set(meter)
    try:
        yield
    finally:
        _meter.reset(token)


def _bounded_render(template: Any, context: Mapping[str, Any], meter: Meter) -> str:
    """``template.render(context)``, stopped once the page passes :data:`PAGE_LIMIT`
    characters. The pieces are counted as the template writes them; past the limit the
    template is stopped by the next check it reaches (a loop's next item, a call: see
    :meth:`Meter.tick`), so that the finding names the template and line writing then,
    or, when it reaches none, at its end.

    Raises:
        TemplateLimit: the page is too long (or another bound was passed).
    """
    pieces: list[str] = []
    written = 0
    meter.overflow = None
    try:
        for piece in template.generate(context):
            written += len(piece)
            if written > PAGE_LIMIT:
                meter.overflow = f"the page would be longer than {PAGE_LIMIT} characters"
                pieces.clear()
            elif meter.overflow is None:
                pieces.append(piece)
    finally:
        over, meter.overflow = meter.overflow, None
    if over is not None:
        raise TemplateLimit(over)
    return "".join(pieces)


def render(t: Templates, name: str, context: Mapping[str, Any], operator_file: str
           ) -> tuple[str | None, list[Finding]]:
    """Render template ``name`` with ``context``.

    Args:
        t: the environment (see :func:`templates`).
        name: the template's name (``person-entry.html``).
        context: the names the template may use.
        operator_file: operator.yaml as the user named it (for naming overrides).

    Returns:
        ``(html, [])``, or ``(None, [finding])`` when the template cannot be
        loaded or rendered: a ``PAGE-TEMPLATE`` error at the template's file
        and line, naming the undefined name, the syntax error or the missing
        template.
    """

    try:
        with metered(_meter.get() or Meter.start()) as meter:
            return _bounded_render(t.env.get_template(name), context, meter), []
    except TemplateRefused as exc:
        return None, [link_finding(t, exc, operator_file)]
    except TemplateLimit as exc:
        loc = _frame_location(t, exc, name, operator_file)
        return None, [Finding(RULE, "error", f"the template stopped: {exc}", loc, LIMIT_HINT)]
    except MemoryError as exc:  # the batch worker's memory bound (RLIMIT_AS)
        loc = _frame_location(t, exc, name, operator_file)
        return None, [Finding(RULE, "error", "the template used more memory than the build "
                              "may use", loc, LIMIT_HINT)]
    except SecurityError as exc:  # before UndefinedError: the sandbox said no
        where = _template_frame(t, exc)
        loc = Location(display_name(t, where[0], operator_file), where[1]) if where else \
            Location(name)
        return None, [Finding(RULE, "error", f"the template reaches for something templates "
                              f"may not use ({exc}); acap renders templates in a sandbox, "
                              "with only the names it gives them", loc, NAMES_HINT)]
    except TemplateSyntaxError as exc:
        file = display_name(t, exc.filename or name, operator_file)
        return None, [Finding(RULE, "error", f"template syntax: {exc.message}",
                              Location(file, exc.lineno), "the line above names where "
                              "the template stopped making sense: look for an unclosed {% or "
                              "{{ there, or just above")]
    except TemplateNotFound as exc:
        loc = _frame_location(t, exc, name, operator_file)
        return None, [Finding(RULE, "error", f"template '{exc.name}' not found", loc,
                              "acap's templates are listed in docs/templates.md in its "
                              "repository; "
                              "write acap/<name> to reach a default you replace")]
    except UndefinedError as exc:
        loc = _frame_location(t, exc, name, operator_file)
        return None, [Finding(RULE, "error", f"the template uses a name acap does not give it: "
                              f"{exc.message}", loc, NAMES_HINT)]
    except Exception as exc:  # any failure inside a template is the template's
        loc = _frame_location(t, exc, name, operator_file)
        what = f"no words '{exc.args[0]}'" if isinstance(exc, KeyError) else \
            f"{type(exc).__name__}: {exc}"
        return None, [Finding(RULE, "error", f"the template failed: {what}", loc, NAMES_HINT)]
