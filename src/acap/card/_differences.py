"""Where ``acap verify`` says otherwise than the official SDKs, on purpose: one table.

The differential suite (``tests/unit/card/test_differential.py``) signs every case card
and a generated set with acap, a2a-sdk 1.3 (Python) and @a2a-js/sdk 1.3 (JavaScript),
and verifies each with all three. Their verdicts agree, or the card is one of the kinds
below: each row says what the card holds, what each verifier says, why acap says it,
and the specification behind it. ``docs/verifying.md`` shows this table
(:func:`differences_markdown`), and a test keeps the two equal.

A row is found for a card by acap's own findings (:attr:`Difference.rules`: the rule ids
acap reports for it) or, for a signature's header, by the reason acap gives
(:attr:`Difference.reasons`).
"""

from __future__ import annotations

from dataclasses import dataclass

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
    rules: tuple[str, ...] = ()
    reasons: tuple[str, ...] = ()

    def allows(self, sdk: str, verdict: str) -> bool:
        """True when the row says ``sdk`` (``python``/``javascript``) may give ``verdict``
        (``valid`` or ``refused``; cannot read it is refused)."""
        words = self.python if sdk == "python" else self.javascript
        if verdict == VALID:
            return VALID in words
        return REFUSED in words or CANNOT_PARSE in words


DIFFERENCES: tuple[Difference, ...] = (
    Difference(
        "name-twice", "a member name written twice in one object (the signed value last)",
        "refused: CARD-JSON error (the signature itself verifies)", VALID, VALID,
        "JSON leaves a duplicated name to the reader; both SDKs keep the last, a reader "
        "keeping the first shows another card than the one signed",
        "RFC 8259 §4; I-JSON, RFC 7493 §2.3; RFC 8785 §3.1 (input is I-JSON)",
        rules=("CARD-JSON",)),
    Difference(
        "lone-surrogate", "a lone surrogate escape (\\ud800) in a name or a text",
        "refused: CARD-JSON error", CANNOT_PARSE, f"{VALID} (its own escaped form)",
        "half a UTF-16 pair is no character: RFC 8785 cannot canonicalize it, and readers "
        "refuse or replace it differently",
        "RFC 8259 §8.2; I-JSON, RFC 7493 §2.1; RFC 8785 §3.2.2.2",
        rules=("CARD-JSON",)),
    Difference(
        "big-integer", "an integer beyond ±(2^53−1), or a number beyond the doubles",
        "refused: CARD-NUMBER error, naming the double it rounds to (the signature "
        "itself verifies over that double)", f"{VALID} or {REFUSED}", f"{VALID} or {REFUSED}",
        "JavaScript reads the double, Python keeps every digit: what is signed (the double) "
        "and what a Python reader shows differ; a number beyond the doubles cannot be "
        "signed at all",
        "I-JSON, RFC 7493 §2.2; RFC 8785 §3.2.2.3", rules=("CARD-NUMBER", "SIG-PAYLOAD")),
    Difference(
        "field-name", "a member written with its proto field name (default_input_modes)",
        "refused: A2A-FIELD-NAME error (the signature itself verifies)",
        f"{VALID} (or {REFUSED} beside the camelCase name)",
        f"{VALID} (or {REFUSED} beside the camelCase name)",
        "the SDKs' ProtoJSON parsers accept both names and sign the JSON name; other "
        "readers know only the JSON names, and with both written the SDKs keep different "
        "ones (JavaScript the camelCase one, Python the last)",
        "A2A 1.0 §5.5 (ProtoJSON, JSON names); protobuf JSON mapping",
        rules=("A2A-FIELD-NAME",)),
    Difference(
        "required", "a REQUIRED member missing, null, empty or blank",
        "refused: A2A-REQUIRED error", VALID, VALID,
        "the SDKs check the signature only (a2a-sdk logs a warning); a card without its "
        "REQUIRED members is not an A2A 1.0 AgentCard",
        "A2A 1.0 §4.4 (field_behavior REQUIRED), §8.4.3", rules=("A2A-REQUIRED",)),
    Difference(
        "type", "a member of another type than a2a.proto gives it, or a oneof with two "
                "members",
        "refused: A2A-TYPE or A2A-OAUTH-FLOWS error",
        f"{CANNOT_PARSE}, or {VALID} where null or an empty scheme reads as unset",
        f"{VALID} or {REFUSED} (it coerces: String(123), Boolean(\"false\") is true)",
        "JavaScript coerces the value into the field's type and signs what it made of it; "
        "Python refuses to parse the card, or reads an empty oneof as unset; a scheme of no "
        "kind or of two is no SecurityScheme",
        "A2A 1.0 §4.4; a2a.proto v1.0.1", rules=("A2A-TYPE", "A2A-OAUTH-FLOWS")),
    Difference(
        "legacy", "an A2A 0.3 member (url, preferredTransport, a scheme's type ...)",
        "refused: A2A-LEGACY error, naming the 1.0 replacement",
        f"{VALID} or {REFUSED} (it rewrites 0.3 members before verifying)",
        f"{VALID} or {REFUSED} (it drops them)",
        "a 0.3 member is read as a 1.0 one by Python and dropped by JavaScript: the two "
        "SDKs sign different cards",
        "A2A 1.0 §4.4; the 0.3 to 1.0 changes", rules=("A2A-LEGACY",)),
    Difference(
        "media-type", "an input or output mode that is not a media type",
        "refused: A2A-MEDIA-TYPE error", VALID, VALID,
        "the SDKs do not read the modes; a client matching media types cannot use one",
        "A2A 1.0 §4.4.1, §4.4.5; RFC 6838 §4.2", rules=("A2A-MEDIA-TYPE",)),
    Difference(
        "no-typ", "a protected header without typ",
        "valid, with a SIG-TYP warning", VALID, REFUSED,
        "typ is a SHOULD of A2A; @a2a-js/sdk requires it, so acap warns",
        "A2A 1.0 §8.4.2; RFC 7515 §4.1.9", reasons=("no typ",)),
    Difference(
        "b64", "b64 in the protected header (without crit, or false)",
        "refused: the signature is INVALID", REFUSED, f"{VALID} or {REFUSED}",
        "b64 must be listed in crit, and an unencoded payload is not how A2A signs; "
        "@a2a-js/sdk ignores b64 without crit and passes the encoded payload as unencoded",
        "RFC 7797 §3, §6; RFC 7515 §4.1.11; A2A 1.0 §8.4.2", reasons=("b64",)),
    Difference(
        "base64url", "a protected header or signature in base64url with bits that encode "
                     "nothing (a second spelling of the same bytes)",
        "refused: the signature is INVALID", REFUSED, VALID,
        "one string encodes the bytes; a second spelling of them is a forgery's door",
        "RFC 7515 §2, §3.2; RFC 4648 §3.5", reasons=("canonical base64url",)),
    Difference(
        "ps256-without-alg", "a PS256 signature whose JWK has no alg",
        "valid (RSA key, PS256 named by the header)", REFUSED, VALID,
        "PyJWT takes an RSA JWK without alg for RS256 and refuses PS256 with it",
        "RFC 7518 §3.5; RFC 7517 §4.4 (alg is OPTIONAL)", reasons=("ps256-without-alg",)),
)


def differences_markdown() -> str:
    """The table as ``docs/verifying.md`` shows it (Markdown, one row per difference)."""
    lines = ["| card | acap | a2a-sdk (Python) | @a2a-js/sdk | why | spec |",
             "|---|---|---|---|---|---|"]
    for d in DIFFERENCES:
        cells = [d.card, d.acap, d.python, d.javascript, d.reason, d.spec]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(lines)
