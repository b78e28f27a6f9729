"""Checks: rules -> findings, for operator.yaml at build time and for any card.

The requirements a card or operator.yaml shows, and acap's own rules about them, live
here, one module per concern (:mod:`acap.requirements` lists every id and where it is
checked; ``grep -rnw 'OR-3.4' src/acap`` finds its code wherever it is: the reply rules
are in :mod:`acap.replies`, the site's in :mod:`acap.site`, signatures in
:mod:`acap.card`, publishing in :mod:`acap.publisher`, pages in :mod:`acap.builder`):
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
    from acap.checks._agent_behaviour import card_staff_judged as card_staff_judged
    from acap.checks._agent_behaviour import missing_safeguards as missing_safeguards
    from acap.checks._card_check import CardCheck as CardCheck
    from acap.checks._card_check import check_card as check_card
    from acap.checks._card_check import check_card_file as check_card_file
    from acap.checks._country import operator_country as operator_country
    from acap.checks._country import phone_example as phone_example
    from acap.checks._country import phone_hint as phone_hint
    from acap.checks._facts import from_card as from_card
    from acap.checks._money import Amount as Amount
    from acap.checks._money import amounts as amounts
    from acap.checks._money import same_amount as same_amount
    from acap.checks._on_request_values import DIGITS as DIGITS
    from acap.checks._on_request_values import PrivateValue as PrivateValue
    from acap.checks._on_request_values import PrivateValues as PrivateValues
    from acap.checks._on_request_values import TextReading as TextReading
    from acap.checks._on_request_values import find_private_values as find_private_values
    from acap.checks._on_request_values import load_private_values as load_private_values
    from acap.checks._on_request_values import read_private_values as read_private_values
    from acap.checks._person_entry_rules import person_entry_problems as person_entry_problems
    from acap.checks._private_keys import SOURCES_HINT as SOURCES_HINT
    from acap.checks._private_keys import key_material_in_site as key_material_in_site
    from acap.checks._private_keys import signing_key_in_site as signing_key_in_site
    from acap.checks._run import OperatorCheck as OperatorCheck
    from acap.checks._run import card_findings as card_findings
    from acap.checks._run import check_operator as check_operator
    from acap.checks._run import check_site as check_site
    from acap.checks._words import fold as fold
    from acap.checks._words import mentions as mentions

__getattr__, __dir__ = exports(__name__)
