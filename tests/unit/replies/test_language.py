"""Which of the operator's languages a reply is in (acap.replies.choose_language):
Accept-Language read as RFC 9110 says, matched as RFC 4647's lookup, then basic filtering."""

from __future__ import annotations

import pytest

from acap.replies import choose_language

OFFERED = ["en", "es", "pt-PT", "de"]


@pytest.mark.parametrize("header, want", [
    (None, "en"),  # nothing asked: the operator's own language
    ("", "en"),
    ("es", "es"),
    ("ES", "es"),  # tags compare without regard to case
    ("es-MX,es;q=0.9,en;q=0.8", "es"),  # lookup: es-MX finds es
    ("de-CH-1996", "de"),  # shortened subtag by subtag
    ("pt", "pt-PT"),  # basic filtering: pt is a prefix of pt-PT
    ("fr;q=0.9, de;q=0.5", "de"),  # French is not the operator's: German next
    ("fr", "en"),  # none of the operator's
    ("en;q=0, es", "es"),  # q=0: not acceptable
    ("en;q=0.2, es;q=0.8", "es"),  # the weights, not the order
    ("es;q=abc, de", "de"),  # a weight that is no number counts as 0
    ("*", "en"),
    ("fr, *;q=0.1", "en"),
])
def test_the_language_the_request_asks_for(header: str | None, want: str) -> None:
    assert choose_language(header, OFFERED) == want


def test_a_hostile_header_is_read_only_so_far() -> None:
    """Thousands of ranges: the first 32 are read; a match after them is not looked for."""
    header = ",".join(["xx"] * 1000 + ["es"])
    assert choose_language(header, OFFERED) == "en"
    assert choose_language(",".join(["xx"] * 31 + ["es"]), OFFERED) == "es"


@pytest.mark.parametrize("header, want", [
    ("es-" + "-".join(["abcdefgh"] * 7000), "en"),  # one range of 7,001 subtags: no range
    ("es-" + "a" * 60_000, "en"),  # a 60 KB subtag: no range
    ("es-mx-" + "-".join(["x"] * 7) + ", de", "de"),  # 9 subtags: skipped; the next is read
    ("es-mx-" + "-".join(["x"] * 6), "es"),  # 8 subtags: a range, found by lookup
    ("xx," * 20 + "es," + "y" * 60_000, "es"),  # past 1024 characters nothing is read ...
    ("x" * 1022 + ",es", "en"),  # ... the range the bound cuts included
    ("es;q=0.5;" + "q" * 60_000 + ", de", "en"),  # a 60 KB parameter: nothing whole to read
    ("es;q=1.0001, de", "de"),  # no qvalue (RFC 9110 §12.4.2): 0
    ("es;q=" + "9" * 500 + ", de", "de"),  # a number of 500 digits is no qvalue
])
def test_a_hostile_header_is_bounded_before_any_work(header: str, want: str) -> None:
    """The header's size, its ranges and their subtags are bounded before any matching: a
    60 KB header or a range of thousands of subtags costs no more than a short one (the
    matching was quadratic in a range's length); what is cut or malformed is not read."""
    from acap.replies._language import MAX_HEADER, _ranges

    assert choose_language(header, OFFERED) == want
    assert sum(len(r) for r in _ranges(header)) <= MAX_HEADER
