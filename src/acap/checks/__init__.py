"""Checks: rules -> findings, for operator.yaml at build time and for any card.

Every requirement of the On Request extension that acap can check, and acap's own rules,
live here, one module per concern (:mod:`acap.requirements` lists every id and where it
is checked; ``grep -rn '"OR-3.4"' src/acap/checks`` finds its code):

* :func:`check_operator`: every check operator.yaml allows (OR-3.x, OR-5.x, A2A structure,
  URLs, text, private values, key material), all faults at once;
* :func:`check_site`: the finished site (OR-3.9 in every built file; card size);
* :func:`check_card`: ``acap check`` of a card from a file or an https URL
  (:class:`CardCheck`), with what could not be checked without operator.yaml listed.

May import: :mod:`acap.card`, :mod:`acap.keys`, :mod:`acap.site`, :mod:`acap.load` and
the modules below them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acap._lazy import exports

if TYPE_CHECKING:
    from acap.checks._card_check import CardCheck as CardCheck
    from acap.checks._card_check import check_card as check_card
    from acap.checks._card_check import check_card_file as check_card_file
    from acap.checks._money import Amount as Amount
    from acap.checks._money import amounts as amounts
    from acap.checks._money import same_amount as same_amount
    from acap.checks._on_request_values import PrivateValue as PrivateValue
    from acap.checks._on_request_values import PrivateValues as PrivateValues
    from acap.checks._on_request_values import load_private_values as load_private_values
    from acap.checks._on_request_values import search_values as search_values
    from acap.checks._private_keys import SOURCES_HINT as SOURCES_HINT
    from acap.checks._private_keys import key_material_in_site as key_material_in_site
    from acap.checks._private_keys import signing_key_in_site as signing_key_in_site
    from acap.checks._run import CARD_SKIPS as CARD_SKIPS
    from acap.checks._run import card_findings as card_findings
    from acap.checks._run import check_operator as check_operator
    from acap.checks._run import check_site as check_site

__getattr__ = exports(__name__)
