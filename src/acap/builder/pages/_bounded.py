"""Jinja2's sandbox with bounds on time and size (attacker trial, HIGH 3).

Jinja2's :class:`~jinja2.sandbox.SandboxedEnvironment` keeps a template from Python
objects and files, but not from making a lot: ``"x"*300000000``, ``s ~ s ~ s``,
``"x"|center(300000000)``, ``"%300000000s"|format``, or two nested loops of
100,000 items each. On a hosting platform one tenant's template would hang the batch
or fill the machine's memory and disk. :class:`BoundedSandbox` refuses, *before* the
work is done, any step whose result would pass a bound, and stops a render that
passes its deadline; both raise :class:`TemplateLimit`, which acap reports as a
``PAGE-TEMPLATE`` error at the template's file and line.

It uses the sandbox's own hooks (``intercepted_binops`` / :meth:`call_binop` for
``*``, ``**``, ``+`` and ``%``; :meth:`call` for every call, methods and macros
included; :meth:`wrap_str_format` for ``str.format``; ``finalize`` for every
``{{ value }}``; the ``filters`` table for the filters that widen text). Two things
have no hook, ``~`` and the items of a ``{% for %}`` loop: the template's tree is
rewritten before it is compiled so that they call the environment too
(:meth:`BoundedSandbox.compile`, through Jinja2's documented ``parse``, ``compile`` of a
node and the node classes extensions use; issue 24: no longer through the code
generator's private ``visit_For`` / ``visit_Concat``, which a Jinja2 release may change).

The deadline is CPU time (of the thread that renders, :data:`CLOCK`): what a template
makes the machine do, not how busy the machine is (on a shared build machine a
wall-clock deadline failed tenants whose templates had done nothing wrong). It is
checked in those hooks, which run in whichever thread renders, and every loop item,
call, operator, attribute, filter and test (``select``, ``map`` call one per item)
passes through them. What runs between two checks is bounded by the size limits, but a
filter of C code over a list of the largest size (``sort``, ``unique``, ``sum``) may
still take a second or two; so where a timer *can* be used, in the main thread (every
batch worker, whatever the operator it builds, and the command line), :func:`metered`
also arms ``signal.setitimer(ITIMER_PROF)`` for the deadline plus
:data:`GRACE_SECONDS` of the process's CPU time, whose handler raises
:class:`TemplateLimit` wherever the render is (attacker re-trial: a ``select`` of
50,000 items over a list of 50,000 ran 38 s past a 5 s deadline before the hooks
covered tests).
"""

from __future__ import annotations

import contextlib
import inspect
import re
import signal
import string
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from functools import wraps
from typing import Any

from jinja2 import nodes
from jinja2.exceptions import SecurityError
from jinja2.runtime import markup_join, str_join
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

#: Seconds an operator's templates may take to render, all pages together.
RENDER_SECONDS = 5.0
#: The largest page (characters) a template may write (about 1 MiB).
PAGE_LIMIT = 1024 * 1024
#: The largest text or list one step of a template may make (characters or items;
#: a list counted as the length of its text).
MAKE_LIMIT = PAGE_LIMIT
#: The most items ``*`` may repeat a text or list to.
REPEAT_LIMIT = 100_000
#: The widest a filter or method may pad or indent (characters).
WIDTH_LIMIT = 10_000
#: The largest whole number (bits) ``*`` and ``**`` may make.
INT_BITS = 4096
#: Characters all the steps of one operator's renders may make together.
TOTAL_LIMIT = 16 * PAGE_LIMIT
#: The version of what the tree rewrite routes through the sandbox (loop items, ``~``):
#: part of the bytecode cache's file names, so that templates compiled with less
#: routed are never loaded. Add one whenever :class:`_Routed` changes.
CODE_VERSION = 2
#: Seconds past the deadline after which the timer (main thread only) stops a render
#: that the hooks did not (one step of C code running long).
GRACE_SECONDS = 1.0
#: The clock of the deadline: CPU seconds of the thread that renders (see the module
#: docstring). A test gives a clock of its own, so that a bound's test does not depend
#: on the machine's speed.
CLOCK: Callable[[], float] = time.thread_time


class TemplateLimit(SecurityError):
    """A template passed a bound: its render took longer than its deadline, or one step
    would have made more than a bound allows. The message says which, in plain words."""


@dataclass
class Meter:
    """One operator's render budget: a deadline (``time.monotonic()`` seconds) and the
    characters made so far (see :data:`TOTAL_LIMIT`)."""

    deadline: float
    seconds: float
    made: int = 0
    #: set when the page being rendered is too long: the next check in the template
    #: stops it there (so that the finding names the template and line writing it).
    overflow: str | None = None

    @classmethod
    def start(cls, seconds: float = RENDER_SECONDS) -> Meter:
        """A meter whose deadline is ``seconds`` of :data:`CLOCK` from now."""
        return cls(CLOCK() + seconds, seconds)

    def tick(self) -> None:
        """Raises :class:`TemplateLimit` once the deadline has passed (or the page is
        too long)."""
        if self.overflow is not None:
            raise TemplateLimit(self.overflow)
        if CLOCK() > self.deadline:
            raise TemplateLimit(f"the templates took longer than {self.seconds:g} seconds "
                                "to render (a loop too long, or loops inside loops)")

    def charge(self, n: int) -> None:
        """Count ``n`` characters made; raises :class:`TemplateLimit` past the total."""
        self.made += n
        if self.made > TOTAL_LIMIT:
            raise TemplateLimit(f"the templates made more than {TOTAL_LIMIT} characters "
                                "of text while rendering")


_SEQ = (str, list, tuple)
_meter: ContextVar[Meter | None] = ContextVar("acap_render_meter", default=None)


_armed = threading.local()


@contextlib.contextmanager
def metered(meter: Meter) -> Iterator[Meter]:
    """Render under ``meter`` inside the ``with`` (per thread and context). In the main
    thread, when no other CPU-time timer is running, ``ITIMER_PROF`` is armed for the
    CPU time left to the meter's deadline plus :data:`GRACE_SECONDS` (once, for the
    outermost ``with``), its handler (``SIGPROF``) raising :class:`TemplateLimit`; the
    previous handler is put back."""
    token = _meter.set(meter)
    timer = _arm(meter)
    try:
        yield meter
    finally:
        if timer is not None:
            signal.setitimer(signal.ITIMER_PROF, 0)
            signal.signal(signal.SIGPROF, timer)
            _armed.on = False
        _meter.reset(token)


def _arm(meter: Meter) -> Any:
    """Arm the backstop timer when this thread may (see :func:`metered`); returns the
    SIGPROF handler to put back, or ``None`` when nothing was armed."""
    if getattr(_armed, "on", False) or not hasattr(signal, "setitimer") \
            or threading.current_thread() is not threading.main_thread() \
            or signal.getitimer(signal.ITIMER_PROF) != (0.0, 0.0):
        return None
    seconds = meter.seconds

    def stop(signum: int, frame: object) -> None:
        raise TemplateLimit(f"the templates took longer than {seconds:g} seconds to "
                            "render (one step ran long: a filter over a large list)")

    previous = signal.signal(signal.SIGPROF, stop)
    _armed.on = True
    left = meter.deadline - CLOCK()
    signal.setitimer(signal.ITIMER_PROF, max(left, 0.0) + GRACE_SECONDS)
    return previous if previous is not None else signal.SIG_DFL


def _tick() -> None:
    m = _meter.get()
    if m is not None:
        m.tick()


def _fits(n: int, what: str) -> None:
    """Refuse a step that would make (or take) ``n`` characters (items)."""
    if n > MAKE_LIMIT:
        raise TemplateLimit(f"{what} would make {n} characters; a step of a template "
                            f"may make at most {MAKE_LIMIT}")


def _make(n: int, what: str) -> None:
    """Refuse a step that would make ``n`` characters (items); else count them."""
    _fits(n, what)
    m = _meter.get()
    if m is not None:
        m.charge(n)


def _made(value: Any) -> Any:
    """Count a text or list a step made (already bounded) against the total."""
    if isinstance(value, _SEQ):
        _make(size(value), "this step")
    return value


def size(value: Any, limit: int = MAKE_LIMIT) -> int:
    """About ``len(str(value))``, counted without making that text, and stopping soon
    after ``limit`` (so that measuring a big nested list costs little)."""
    if isinstance(value, str):
        return len(value)
    if isinstance(value, bool) or value is None:
        return 5
    if isinstance(value, int):
        return value.bit_length() // 3 + 1
    if isinstance(value, (list, tuple, set, frozenset, dict)):
        total = 2
        items: Iterable[Any] = value.items() if isinstance(value, dict) else value
        for n, item in enumerate(items):
            if not n & 4095:
                _tick()
            total += 2 + size(item, limit - total)
            if total > limit:
                break
        return total
    return 16


def _int(value: Any, name: str) -> None:
    if isinstance(value, int) and value > WIDTH_LIMIT:
        raise TemplateLimit(f"{name} {value} is wider than {WIDTH_LIMIT}")
    if isinstance(value, str) and len(value) > WIDTH_LIMIT:
        raise TemplateLimit(f"{name} is a text longer than {WIDTH_LIMIT} characters")


# printf-style conversions: Python has no parser for them (string.Formatter reads only
# str.format's syntax), so this one pattern finds each conversion's width and precision.
_CONVERSION = r"[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)?"
_PRINTF = re.compile(r"%(?:\([^)]*\))?" + _CONVERSION, re.S)
#: The same after the last ``)`` of a format, where a key cannot close: tried there, the key
#: would read to the end of the format from every ``%(`` (work growing with the square of
#: ``"%(" * n``); skipped, each conversion is read as the key's failure leaves it.
_PRINTF_KEYLESS = re.compile("%" + _CONVERSION, re.S)


def _conversions(fmt: str) -> Iterator[tuple[str, str, str]]:
    """``(width, precision, kind)`` of each conversion of ``fmt``, as ``_PRINTF.findall``
    reads them, in work linear in ``fmt``."""
    last_close = fmt.rfind(")")
    at = fmt.find("%")
    while at >= 0:
        m = (_PRINTF if at < last_close else _PRINTF_KEYLESS).match(fmt, at)
        assert m is not None  # both match a lone "%"
        yield m.group(1) or "", m.group(2) or "", m.group(3) or ""
        at = fmt.find("%", m.end())


def _printf(fmt: str, values: Any) -> None:
    """Bound ``fmt % values`` before it is made."""
    conversions = 0
    for width, precision, kind in _conversions(fmt):
        if kind == "%" and not width and not precision:
            continue
        conversions += 1
        for part in (width, precision):
            if part == "*":
                raise TemplateLimit("a % format takes its width from its values; write "
                                    "the width in the format")
            if part:
                _int(int(part), "the % format's width")
    _fits(len(fmt) + conversions * (WIDTH_LIMIT + size(values)), "this % format")


def _str_format(fmt: str, args: Any) -> None:
    """Bound ``fmt.format(*args)`` before it is made (string.Formatter reads its fields)."""
    fields = 0
    for _, name, spec, _ in string.Formatter().parse(fmt):
        if name is None:
            continue
        fields += 1
        if spec and "{" in spec:
            raise TemplateLimit("a format takes its width from its values; write the "
                                "width in the format")
        for digits in re.findall(r"\d+", spec or ""):
            _int(int(digits), "the format's width")
    _fits(len(fmt) + fields * (WIDTH_LIMIT + size(args)), "this format")


def _repeat(seq: Any, times: int) -> None:
    items = len(seq) * max(times, 0)
    if items > REPEAT_LIMIT:
        raise TemplateLimit(f"* would repeat to {items} items; at most {REPEAT_LIMIT}")
    _fits(size(seq) * max(times, 0), "this *")



def _check_binop(op: str, left: Any, right: Any) -> None:
    ints = isinstance(left, int) and isinstance(right, int)
    if op == "*":
        if isinstance(left, _SEQ) and isinstance(right, int):
            _repeat(left, right)
        elif isinstance(right, _SEQ) and isinstance(left, int):
            _repeat(right, left)
        elif ints and left.bit_length() + right.bit_length() > INT_BITS:
            raise TemplateLimit(f"* would make a number of more than {INT_BITS} bits")
    elif op == "**":
        if ints and right > 0 and abs(left) > 1 and left.bit_length() * right > INT_BITS:
            raise TemplateLimit(f"** would make a number of more than {INT_BITS} bits")
    elif op == "+":
        if isinstance(left, _SEQ) and isinstance(right, _SEQ):
            _fits(size(left) + size(right), "this +")
    elif op == "%" and isinstance(left, str):
        _printf(left, right)


def _str_method(owner: str, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
                ) -> tuple[Any, ...]:
    """Bound a call of a method of a text, before it is made; returns its arguments
    (``join`` gets a list in place of a generator, measured)."""
    if name in ("center", "ljust", "rjust", "zfill"):
        for v in (*args, *kwargs.values()):
            _int(v, f"{name}'s width")
        _fits(len(owner) + WIDTH_LIMIT, f"{name}()")
    elif name == "expandtabs":
        for v in (*args, *kwargs.values()):
            _int(v, "expandtabs' width")
        _fits(len(owner) + owner.count("\t") * WIDTH_LIMIT, "expandtabs()")
    elif name == "replace":
        _replace(owner, *args, **kwargs)
    elif name == "join" and args:
        items = list(args[0])
        _fits(size(items) + len(items) * len(owner), "join()")
        return (items, *args[1:])
    elif name in ("translate", "format", "format_map"):
        raise TemplateLimit(f"a template may not call {name}() on a text")
    return args


def _replace(s: Any, old: Any = "", new: Any = "", count: Any = -1) -> None:
    text, old, new = str(s), str(old), str(new)
    found = text.count(old) if old else len(text) + 1
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    _fits(len(text) + found * max(len(new) - len(old), 0), "replace")


def _bind(sig: inspect.Signature | None, args: tuple[Any, ...], kwargs: dict[str, Any]
          ) -> dict[str, Any]:
    """A filter's arguments by name (``args``/``kwargs`` when they do not bind: Jinja2's
    async-variant filters take an evaluation context their signature does not name)."""
    try:
        if sig is not None:
            return dict(sig.bind(*args, **kwargs).arguments)
    except TypeError:
        pass
    return {"args": args, "kwargs": kwargs}


def _filter_checks(filter_name: str, a: dict[str, Any]) -> dict[str, Callable[[], Any]]:
    """What to check before each filter that can widen text, on its bound arguments."""
    def width(name: str, default: int) -> Callable[[], None]:
        return lambda: _int(a.get(name, default), f"{filter_name}'s {name}")

    def indent() -> None:
        w = a.get("width", 4)
        _int(w, "indent's width")
        per_line = len(w) if isinstance(w, str) else int(w)
        s = str(a.get("s", ""))
        _fits(len(s) + (s.count("\n") + 1) * per_line, "indent")

    def wordwrap() -> None:
        s, w = str(a.get("s", "")), a.get("width", 79)
        wrap = a.get("wrapstring") or "\n"
        _fits(len(s) + (len(s) // max(int(w), 1) + 1) * len(str(wrap)), "wordwrap")

    def format_() -> None:
        _printf(str(a.get("value", "")), a.get("kwargs") or a.get("args") or ())

    return {"center": width("width", 80), "indent": indent, "wordwrap": wordwrap,
            "format": format_, "replace": lambda: _replace(
                a.get("s", ""), a.get("old", ""), a.get("new", ""), a.get("count") or -1),
            "batch": width("linecount", 0), "slice": width("slices", 0),
            "truncate": lambda: _fits(size(a.get("s", "")) + size(a.get("end", "")),
                                      "truncate")}


def _bounded_filter(name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """``func`` with its input measured (and, for the filters that widen text, its
    arguments bounded) before it runs, and the text it makes counted."""

    # The signature is read on the filter's first use, not for all fifty-odd filters
    # when the environment is made: a build uses a few (about 3 ms of every build).
    signature: list[inspect.Signature | None] = []

    @wraps(func)  # keeps jinja_pass_arg (pass_context, pass_environment ...)
    def bounded(*args: Any, **kwargs: Any) -> Any:
        _tick()
        if not signature:
            try:
                signature.append(inspect.signature(func))
            except (TypeError, ValueError):
                signature.append(None)
        a = _bind(signature[0], args, kwargs)
        values = [v for k, v in a.items() if k not in ("environment", "eval_ctx", "context")]
        _fits(sum(size(v) for v in values), f"the filter {name}")
        check = _filter_checks(name, a).get(name)
        if check is not None:
            check()
        if name == "join" and "value" in a:  # measured as a list: a generator is used up
            items = list(a["value"])
            _fits(size(items) + len(items) * len(str(a.get("d", ""))), "join")
            args = tuple(items if v is a.get("value") else v for v in args)
        return _made(func(*args, **kwargs))

    return bounded


def _each(items: Iterable[Any]) -> Iterator[Any]:
    meter = _meter.get()
    if meter is None:
        yield from items
        return
    for n, item in enumerate(items):
        if meter.overflow is not None or not n & 255:  # the clock every 256 items
            meter.tick()
        yield item


class _Routed(NodeTransformer):
    """A template's tree with the two steps the sandbox has no hook for routed through
    the environment: the items of each ``{% for %}`` loop (:meth:`BoundedSandbox.bounded_items`,
    its deadline) and each ``~`` (:meth:`BoundedSandbox.bounded_concat`, the size of
    what it makes). The nodes are Jinja2's own, as extensions use them
    (``EnvironmentAttribute``, ``ContextReference``, ``Call``)."""

    def visit_For(self, node: nodes.For) -> nodes.Node:
        """A loop takes its items through :meth:`BoundedSandbox.bounded_items`."""
        self.generic_visit(node)
        node.iter = nodes.Call(nodes.EnvironmentAttribute("bounded_items"), [node.iter], [],
                               None, None, lineno=node.iter.lineno)
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        """``a ~ b`` is :meth:`BoundedSandbox.bounded_concat` of its pieces."""
        self.generic_visit(node)
        return nodes.Call(nodes.EnvironmentAttribute("bounded_concat"),
                          [nodes.ContextReference(), *node.nodes], [], None, None,
                          lineno=node.lineno)


class BoundedSandbox(ImmutableSandboxedEnvironment):
    """Jinja2's immutable sandbox, with every step that can make a lot bounded before it
    runs and a deadline checked as the template runs (see the module's docstring).

    Render under :func:`metered` to apply a deadline and the total of
    :data:`TOTAL_LIMIT`; without it only the per-step bounds apply.

    Raises (while rendering):
        TemplateLimit: a bound was passed.
    """

    intercepted_binops = frozenset({"*", "**", "+", "%"})

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, finalize=self._bounded_value, **kwargs)
        self.filters = {name: _bounded_filter(name, f) for name, f in self.filters.items()}

    def compile(self, source: Any, name: str | None = None, filename: str | None = None,
                raw: bool = False, defer_init: bool = False) -> Any:
        """Jinja2's ``compile``, the template's tree first routed (:class:`_Routed`): a
        source is parsed (``parse``), rewritten, and the tree compiled."""
        if isinstance(source, str):
            source = _Routed().visit(self.parse(source, name, filename))
        return super().compile(source, name, filename, raw,  # type: ignore[call-overload]
                               defer_init)

    @staticmethod
    def _bounded_value(value: Any) -> Any:
        """Every ``{{ value }}``: measured before it becomes text."""
        _make(size(value), "this {{ value }}")  # counted: output made
        return value

    def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
        """``*``, ``**``, ``+`` and ``%``, refused when the result would pass a bound."""
        _tick()
        _check_binop(operator, left, right)
        return _made(super().call_binop(context, operator, left, right))

    def call(__self, __context: Any, __obj: Any, *args: Any, **kwargs: Any) -> Any:
        """Every call (functions, methods, macros), after the deadline is checked and a
        text method that widens text is bounded."""
        _tick()
        owner = getattr(__obj, "__self__", None)
        if isinstance(owner, str):
            args = _str_method(owner, getattr(__obj, "__name__", ""), args, kwargs)
            return _made(super().call(__context, __obj, *args, **kwargs))
        return super().call(__context, __obj, *args, **kwargs)

    def wrap_str_format(self, value: Any) -> Callable[..., str] | None:
        """``text.format(...)``: the sandbox's, with widths bounded first."""
        wrapped = super().wrap_str_format(value)
        if wrapped is None:
            return None
        fmt = value.__self__

        def bounded(*args: Any, **kwargs: Any) -> str:
            _str_format(fmt, (args, kwargs))
            out: str = _made(wrapped(*args, **kwargs))  # a Markup stays one
            return out

        return bounded

    def call_filter(self, name: str, value: Any, args: Any = None, kwargs: Any = None,
                    context: Any = None, eval_ctx: Any = None) -> Any:
        """A filter called by name from another (``map('upper')``): the deadline first."""
        _tick()
        return super().call_filter(name, value, args, kwargs, context, eval_ctx)

    def call_test(self, name: str, value: Any, args: Any = None, kwargs: Any = None,
                  context: Any = None, eval_ctx: Any = None) -> Any:
        """A test, once per item in ``select``/``reject``: the deadline first."""
        _tick()
        return super().call_test(name, value, args, kwargs, context, eval_ctx)

    def getattr(self, obj: Any, attribute: str) -> Any:
        """``x.name`` (and ``map(attribute=...)``, ``selectattr``): the deadline first."""
        _tick()
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        """``x[key]``: the deadline first."""
        _tick()
        return super().getitem(obj, argument)

    def bounded_items(self, items: Any) -> Any:
        """The items of a ``{% for %}`` loop, the deadline checked as they are taken."""
        return _each(items)

    def bounded_concat(self, context: Any, *pieces: Any) -> str:
        """``a ~ b``, refused when the text would pass :data:`MAKE_LIMIT`; joined as Jinja2
        joins it (markup-safe where the template's ``context`` autoescapes)."""
        _tick()
        _make(sum(size(p) for p in pieces), "this ~")
        return markup_join(pieces) if context.eval_ctx.autoescape else str_join(pieces)
