"""Where ``acap verify`` says otherwise than the official SDKs, on purpose: one table.

The differential suite (``tests/unit/card/test_differential.py``) signs every case card
and a generated set with acap, a2a-sdk 1.3 (Python) and @a2a-js/sdk 1.3 (JavaScript),
and verifies each with all three. Their verdicts agree, or the card is one of the kinds
below: each row says what the card holds, what each verifier says, why acap says it,
and the specification behind it. ``docs/verifying.md`` shows this table
(:func:`differences_markdown`), and a test keeps the two equal.

The rows are data, ``acap/data/sdk-differences.json``, read once here. A row is found
for a card by acap's own findings (:attr:`Difference.rules`: the rule ids
acap reports for it) or, for a signature's header, by the reason acap gives
(:attr:`Difference.reasons`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from acap._package import package_path

#: Verdict words of the table.
VALID, REFUSED, CANNOT_PARSE = "valid", "refused", "cannot read it"


@dataclass(frozen=True)
class Difference:
    """One kind of card on which acap deliberately differs from an SDK.

    Attributes:
        id: a short name (the anchor in docs/verifying.md).
        card: what the card (or its signature) holds.
        acap: acap's verdict and how it says it.
        python: a2a-sdk 1.3's verdict (``valid``, ``refused``, ``cannot read it``, or
            ``valid or refused`` where it depends on who signed).
        javascript: @a2a-js/sdk 1.3's verdict, in the same words.
        reason: why acap says what it says.
        spec: the sections behind it.
        signature_differs: whether the verdict on the signature itself may differ
            (otherwise the signature verifies alike everywhere, and only acap's verdict
            on the card differs).
        rules: acap's rule ids that mark a card of this kind (any of them).
        reasons: words of acap's reason for a signature that mark it (any of them).
    """

    id: str
    card: str
    acap: str
    python: str
    javascript: str
    reason: str
    spec: str
    signature_differs: bool = False
    rules: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def allows(self, sdk: str, verdict: str) -> bool:
        """True when the row says ``sdk`` (``python``/``javascript``) may give ``verdict``
        (``valid`` or ``refused``; cannot read it is refused)."""
        words = self.python if sdk == "python" else self.javascript
        if verdict == VALID:
            return VALID in words
        return REFUSED in words or CANNOT_PARSE in words


def _load() -> tuple[Difference, ...]:


    doc = json.loads(package_path("data", "sdk-differences.json").read_bytes())
    return tuple(Difference(row["id"], row["card"], row["acap"], row["python"],
                            row["javascript"], row["reason"], row["spec"],
                            bool(row.get("signatureDiffers")), tuple(row.get("rules", ())),
                            tuple(row.get("reasons", ())))
                 for row in doc["differences"])


#: The table, one row per kind of card (``acap/data/sdk-differences.json``: data that
#: maintainers extend when the SDKs change, as the requirement registry is).
DIFFERENCES: tuple[Difference, ...] = _load()


def differences_markdown() -> str:
    """The table as ``docs/verifying.md`` shows it (Markdown, one row per difference)."""
    lines = ["| card | acap | a2a-sdk (Python) | @a2a-js/sdk | why | spec |",
             "|---|---|---|---|---|---|"]
    for d in DIFFERENCES:
        cells = [d.card, d.acap, d.python, d.javascript, d.reason, d.spec]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
