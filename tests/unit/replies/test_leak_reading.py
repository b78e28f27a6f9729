"""The one reading of what a reply carries and the one leak judgement (issue 19, attacker
trial HIGH 1 and 2): ``acap.replies.reading_of`` and ``find_leaks``, which the egress guard,
``acap probe`` and ``acap check-reply`` all use.

Each case hides the chapel's private price (``£1,395``, operator.private.yaml line 2) in one
place or one spelling of a reply as A2A 1.0 JSON; each must be found as the value (an error),
and a reply that carries none of it must give nothing."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from acap.checks import PrivateValue
from acap.replies import find_leaks, fold, may_continue, reading_of, sdk_ids

PRICE = PrivateValue("service-pricing", "£1,395", "operator.private.yaml", 2)


def _msg(*parts: dict[str, Any], mid: str = "m-1", **more: Any) -> dict[str, Any]:
    return {"messageId": mid, "role": "ROLE_AGENT", "parts": list(parts), **more}


def _text(t: str) -> dict[str, Any]:
    return _msg({"text": t})


def _b64(b: bytes) -> str:
    return base64.b64encode(b).decode()


def _artifact(parts: list[dict[str, Any]], append: bool = False, **more: Any) -> dict[str, Any]:
    return {"artifactUpdate": {"taskId": "t-1", "contextId": "c-1", "append": append,
                               "artifact": {"artifactId": "a-1", "parts": parts, **more}}}


#: Where and how a reply may carry the price: each is the value, an error.
CARRIERS: dict[str, Any] = {
    "text": _text("A direct cremation costs £1,395."),
    "a data part's JSON number and currency": _msg({"data": {"amount": 1395, "currency": "GBP"}}),
    "a data part's number in minor units": _msg({"data": {"pence": 139500}}),
    "a data part's number in a currency-named member": _msg({"data": {"priceGBP": 1395.0}}),
    "a data part's key": _msg({"data": {"£1,395": True}}),
    "a data part's nested value": _msg({"data": {"a": {"b": [{"c": "£1395"}]}}}),
    "a data part's string number beside a currency": _msg({"data": {"v": "1395",
                                                                    "unit": "GBP"}}),
    "a messageId": _msg({"text": "Here it is."}, mid="price-1395-gbp"),
    "a Message's metadata": _msg({"text": "Here it is."}, metadata={"quote": "£1395.00"}),
    "a Part's metadata": _msg({"text": "Here.", "metadata": {"q": "£1,395"}}),
    "an Artifact's metadata": _artifact([{"text": "x"}], metadata={"p": "£1395"}),
    "an Artifact's name": _artifact([{"text": "x"}], name="Price £1,395"),
    "a status update's metadata": {"statusUpdate": {
        "taskId": "t-1", "contextId": "c-1", "status": {"state": "TASK_STATE_WORKING"},
        "metadata": {"x": {"gbp": 1395}}}},
    "a Task's metadata": {"task": {"id": "t-1", "contextId": "c-1", "metadata": {
        "total": "GBP 1,395"}, "status": {"state": "TASK_STATE_COMPLETED"}}},
    "a Task's history": {"task": {"id": "t-1", "contextId": "c-1",
                                  "status": {"state": "TASK_STATE_COMPLETED"},
                                  "history": [_msg({"text": "£1,395"}, mid="h-1")]}},
    "a member A2A does not define": _msg({"text": "Here."}, price="£1,395"),
    "a file part's name": _msg({"url": "https://x.example/p", "filename": "£1395.pdf"}),
    "raw text bytes": _msg({"raw": _b64("costs £1,395".encode()), "mediaType": "text/plain"}),
    "raw UTF-16 text": _msg({"raw": _b64("costs £1,395".encode("utf-16")),
                             "mediaType": "text/plain"}),
    "a JSON-RPC error": {"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32000, "message": "failed", "data": {"price": "£1,395"}}},
    "two Parts of one Message": _msg({"text": "It costs £1,"}, {"text": "395."}),
    "three Parts, one digit apart": _msg({"text": "£"}, {"text": "1"}, {"text": "395"}),
    "appended artifact chunks": [_artifact([{"text": "costs £1,"}]),
                                 _artifact([{"text": "395"}], append=True)],
    "two status messages": [
        {"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {
            "state": "TASK_STATE_WORKING", "message": _text("It is £13")}}},
        {"statusUpdate": {"taskId": "t-1", "contextId": "c-1", "status": {
            "state": "TASK_STATE_COMPLETED", "message": _text("95 in all.")}}}],
    "a data part, then a text part": _msg({"data": {"currency": "GBP"}}, {"text": "1395"}),
}

#: How the words may spell it: each is the value, an error.
SPELLINGS = {
    "fullwidth digits": "costs £１，３９５",
    "superscript digits": "costs £¹³⁹⁵",
    "Arabic-Indic digits": "costs £١٣٩٥",
    "named and numeric HTML entities": "costs &pound;1&#44;395",
    "every character an entity": "&#163;&#49;&#51;&#57;&#53;",
    "an entity escaped twice": "costs &amp;pound;1,395",
    "a zero-width space": "costs £1\u200b395",
    "a soft hyphen": "costs £1\u00ad395",
    "a word joiner and a narrow no-break space": "costs £1\u2060\u202f395",
    "percent-escapes": "costs %C2%A31%2C395",
    "spelled out in English": "one thousand three hundred and ninety-five pounds",
    "spelled out as people say it": "thirteen ninety-five pounds",
    "spelled out in Spanish": "£ mil trescientas noventa y cinco",
    "in pence": "It is 139500 pence",
    "in a markup tag's gap": "£1,<b>395</b>",
    "a combining mark on a digit": "£1,3\u03069\u03065",
}


@pytest.mark.parametrize("name", sorted(CARRIERS))
def test_every_place_a_reply_carries_the_value_is_read(name: str) -> None:
    reading = reading_of(CARRIERS[name])
    found = find_leaks(reading, [PRICE], any_amount=False)
    assert [(lk.kind, lk.level, lk.value) for lk in found][:1] == [("value", "error", PRICE)]


@pytest.mark.parametrize("name", sorted(SPELLINGS))
def test_every_spelling_of_the_value_is_the_value(name: str) -> None:
    found = find_leaks(reading_of(_text(SPELLINGS[name])), [PRICE], any_amount=False)
    assert [(lk.kind, lk.level) for lk in found][:1] == [("value", "error")], found


@pytest.mark.parametrize("value, text", [
    ("€120", "It is 12000 cents"),  # the trial's minor units: 12000 cents is 120.00
    ("€120.00", "12 000 cents all in"),
    ("1395 pounds", "£1,395.00"),
    ("€2.450", "zweitausendvierhundertfünfzig Euro"),
    ("€2.450", "deux mille quatre cent cinquante euros"),
])
def test_the_same_amount_in_another_unit_or_language_is_the_value(value: str,
                                                                 text: str) -> None:
    v = PrivateValue("service-pricing", value, "operator.private.yaml", 1)
    assert [lk.kind for lk in find_leaks(reading_of(_text(text)), [v], any_amount=False)] \
        == ["value"]


@pytest.mark.parametrize("reply, shown", [
    (_text("It is about €2.450 all in."), "€2.450"),
    (_msg({"data": {"amount": 980, "currency": "EUR"}}), "EUR 980"),
    (_msg({"data": {"cents": 12000}}), "12000 cents"),
    (_text("costs ＄９８０"), "$980"),
])
def test_any_amount_where_no_amount_may_be_sent(reply: Any, shown: str) -> None:
    """An amount the private file does not list, for a question no classifier recognised."""
    assert find_leaks(reading_of(reply), [], any_amount=False) == []
    [lk] = find_leaks(reading_of(reply), [], any_amount=True)
    assert (lk.kind, lk.level, lk.shown) == ("amount", "error", shown)


@pytest.mark.parametrize("part, why", [
    ({"url": "https://files.example/prices.pdf", "mediaType": "application/pdf"},
     "a file by URL"),
    ({"raw": _b64(b"%PDF-1.7\x00\xff\xfe"), "mediaType": "application/pdf"},
     "raw bytes (application/pdf)"),
    ({"raw": "not base64 !!", "mediaType": "text/plain"}, "raw bytes that are not base64"),
    ({"image": {"x": 1}}, "a Part of no kind A2A 1.0 defines"),
])
def test_what_cannot_be_read_is_said(part: dict[str, Any], why: str) -> None:
    reading = reading_of(_msg(part))
    assert [w for _, w in reading.unreadable if w.startswith(why)], reading.unreadable
    [lk] = find_leaks(reading, [PRICE], any_amount=True)
    assert (lk.kind, lk.level, lk.pointer) == ("unreadable", "warning", "/parts/0" + (
        "/url" if "url" in part else "/raw" if "raw" in part else ""))


def test_a_reply_larger_than_the_reading_is_said_unreadable() -> None:
    from acap.replies._reading import MAX_CHARS

    reading = reading_of(_text("a" * (MAX_CHARS + 10)))
    assert reading.chars == MAX_CHARS
    assert reading.unreadable and "larger than" in reading.unreadable[0][1]


@pytest.mark.parametrize("text", [
    "We are open 09:00 to 17:00, Monday to Friday; call 0161 496 0000.",
    "The chapel seats 139 people; 5 parking spaces.",
    # an id holding the digits among letters (a group of decimal digits alone is a number)
    "Task 1395abcd-e13f-4e2f-a1b2-0123456789ab is done.",
    "Token 1395deadbeef13950000 issued.",
])
def test_a_reply_without_the_value_gives_nothing(text: str) -> None:
    assert find_leaks(reading_of(_text(text)), [PRICE], any_amount=True) == []


def test_the_ids_the_sdk_made_and_what_the_caller_sent_are_not_read() -> None:
    """The probe's own question repeated in a Task's history, and the SDK's UUID task id,
    are not the agent's words (a question "is it £1,395?" does not make the reply leak)."""
    asked = {"messageId": "q-1", "role": "ROLE_USER", "parts": [{"text": "Is it £1,395?"}]}
    tid = "0d3c1395-0000-4000-8000-000000001395"
    task = {"task": {"id": tid, "contextId": tid, "history": [asked],
                     "status": {"state": "TASK_STATE_COMPLETED"}}}
    assert sdk_ids(task) == {tid}
    assert find_leaks(reading_of(task, exempt=sdk_ids(task), own=[asked]), [PRICE],
                      any_amount=True) == []
    # a message of the caller's altered, or one the caller never sent, is read
    forged = {**asked, "parts": [{"text": "It is £1,395."}]}
    for history in ([forged], [{**asked, "messageId": "q-2"}]):
        task["task"]["history"] = history
        assert find_leaks(reading_of(task, own=[asked]), [PRICE], any_amount=False)


def test_an_entitled_caller_is_given_the_value() -> None:
    """No value kept from the caller, amounts allowed: nothing is a leak."""
    reply = _msg({"data": {"amount": 1395, "currency": "GBP"}}, {"text": "£1,395"})
    assert find_leaks(reading_of(reply), [], any_amount=False) == []


def test_fold_gives_one_spelling() -> None:
    assert fold("£１，３９５&nbsp;&amp;\u200b¹") == "£1,395 &1"
    assert fold("a\u2014b_c/d\ne") == "a b c d\ne"


@pytest.mark.parametrize("said, more", [
    ("It costs £1,", True), ("It costs", False), ("The price is one thousand", True),
    ("Our price: £", True), ("We charge &pound", True), ("Call us, thanks.", False),
])
def test_a_stream_is_held_while_its_end_may_start_a_value(said: str, more: bool) -> None:
    assert may_continue(said, said, [PRICE]) is more
