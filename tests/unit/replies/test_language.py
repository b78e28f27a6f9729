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
