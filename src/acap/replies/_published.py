"""OR-3.9 on text acap publishes, read as ``acap check-reply`` reads a reply: the one
reading (:func:`acap.replies._leaks.find_leaks`: folded spellings, numbers spelled out in
words, ``1.395e3 GBP``) that ``acap build`` and ``acap check`` pass down to
:mod:`acap.checks` (:class:`acap.checks.TextReading`), so that the three commands give one
verdict on one text."""

from __future__ import annotations

from collections.abc import Sequence

from acap.checks import PrivateValue
from acap.findings import Level
from acap.replies._leaks import find_leaks
from acap.replies._reading import Piece, Reading

__all__ = ["ReplyReading"]


def _one_text(text: str) -> Reading:
    return Reading([Piece(text, "", "text")], chars=len(text))


class ReplyReading:
    """:class:`acap.checks.TextReading` by the reply reading (module docstring)."""

    def values(self, text: str,
               values: Sequence[PrivateValue]) -> list[tuple[PrivateValue, Level]]:
        """The private values ``text`` gives: ``(value, "error")`` for the value (in any
        spelling or currency unit check-reply reads), ``(value, "warning")`` for its number
        alone."""
        if not values:
            return []
        return [(lk.value, lk.level) for lk in find_leaks(_one_text(text), values,
                                                          any_amount=False)
                if lk.value is not None and lk.kind in ("value", "number")]

    def amounts(self, text: str) -> list[str]:
        """Each amount of money in ``text`` (digits or words), as written there."""
        return [lk.shown for lk in find_leaks(_one_text(text), (), any_amount=True)
                if lk.kind == "amount"]
