"""The reply library (acap.replies._api): decide, build, and the checker's API.

The Annex A.2, A.3 and A.4 replies in tests/cases/reply/ are the spec's data;
the builder must produce them field for field from the same ids and text.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acap.cli import finding_json, finding_text
from acap.load import parse_reply, read_reply
from acap.replies import (
    Outcome,
    Safeguards,
    check_reply,
    compare_replies,
    decide,
    defer_action,
    give_on_opt_in,
    mark,
    on_request_skills,
    opt_in_artifact,
    parse_extensions_header,
    refer_action,
    refer_information,
    reply_object,
    skill_from_card,
)
from acap.replies._text import claims_done, denies_existence, mentions_person_entry
from acap.uris import EXTENSION_URI
from support.replies import CASES, card_data

A1 = card_data("annex-a1")
A4_CARD = card_data("annex-a4-opted-in")
DEFERRED = card_data("deferred-booking")
TEL = card_data("tel-entry")
PE = "https://ask.example.com/talk"


def annex(name: str) -> Any:
    """A valid reply case (the Annex replies are among them) as parsed JSON."""
    return json.loads((CASES / "valid" / f"{name}.json").read_text(encoding="utf-8"))


def skill(card: Any, sid: str) -> Any:
    s = skill_from_card(card, sid)
    assert s is not None
    return s


# -- the Annex examples, field for field -------------------------------------------------

def test_refer_information_is_annex_a2() -> None:
    got = refer_information(skill(A1, "service-pricing"), activated=True, message_id="m-2",
                            operator="Example Memorial Chapel", what="its prices")
    assert got == annex("a2-information-referred")
    # key order too, so the JSON reads like the spec's
    assert json.dumps(got) == json.dumps(annex("a2-information-referred"))


def test_refer_action_is_annex_a3() -> None:
    got = refer_action(skill(A1, "arrangement-booking"), activated=True, message_id="m-7",
                       action="book this meeting", person_can="book it", task_id="t-41",
                       context_id="c-9")
    assert json.dumps(got) == json.dumps(annex("a3-action-referred"))


def test_give_on_opt_in_is_annex_a4() -> None:
    text = ("A direct cremation at Example Memorial Chapel is [price as the chapel gives it], "
            "including transfer and the certificate fee.")
    got = give_on_opt_in(skill(A4_CARD, "service-pricing"), activated=True, task_id="t-52",
                         context_id="c-12", artifact_id="a-1", name="Cremation price",
                         text=text)
    assert json.dumps(got) == json.dumps(annex("a4-given-on-opt-in"))


def test_not_activated_is_the_same_reply_without_the_object() -> None:
    # OR-5.1 / OR-6.2: the words are the same; only the marking differs.
    s = skill(A1, "service-pricing")
    on = refer_information(s, activated=True, message_id="m-2", operator="X", what="its prices")
    off = refer_information(s, activated=False, message_id="m-2", operator="X",
                            what="its prices")
    assert "metadata" not in off and "extensions" not in off
    assert {k: v for k, v in on.items() if k not in ("metadata", "extensions")} == off


# -- A2A 1.0 JSON: the official SDK parses every builder output ------------------------

def _sdk_roundtrip(obj: dict[str, Any], kind: str) -> dict[str, Any]:
    from a2a.types import a2a_pb2
    from google.protobuf import json_format

    msg = json_format.ParseDict(obj, getattr(a2a_pb2, kind)())  # unknown fields raise
    out: dict[str, Any] = json_format.MessageToDict(msg)
    return out


def test_builder_outputs_are_a2a_1_0_json_for_the_sdk() -> None:
    s = skill(A1, "service-pricing")
    a = skill(A1, "arrangement-booking")
    m = refer_information(s, activated=True, message_id="m-2", operator="X")
    assert _sdk_roundtrip(m, "Message") == m
    t = refer_action(a, activated=True, message_id="m-7", task_id="t", context_id="c")
    assert _sdk_roundtrip(t, "Task") == t
    g = give_on_opt_in(skill(A4_CARD, "service-pricing"), activated=True, task_id="t",
                       context_id="c", artifact_id="a", text="info")
    assert _sdk_roundtrip(g, "Task") == g
    d = defer_action(skill(DEFERRED, "arrangement-booking"), message_id="m", task_id="t",
                     context_id="c", operator="Example Memorial Chapel")
    assert _sdk_roundtrip(d, "Task") == d


# -- decide ---------------------------------------------------------------------------

def test_decide_refers_service_pricing_and_echoes_the_uri() -> None:
    d = decide(A1, "service-pricing", request_extensions=EXTENSION_URI, for_named_person=True)
    assert d.outcome is Outcome.REFER_INFORMATION
    assert d.status == "on-request" and d.mark and d.task_state == "TASK_STATE_COMPLETED"
    assert d.echo_header == EXTENSION_URI
    assert any(r.startswith("OR-5.3") for r in d.reasons)


def test_decide_ignores_activation_for_the_outcome() -> None:
    # OR-5.1: every combination gives the same outcome with and without activation.
    for sid, named, guards in itertools.product(
            ["service-pricing", "arrangement-booking", "opening-hours"], [True, False],
            [None, Safeguards(True, True, True, True)]):
        for card in (A1, A4_CARD):
            on = decide(card, sid, request_extensions=EXTENSION_URI, for_named_person=named,
                        safeguards=guards)
            off = decide(card, sid, request_extensions=None, for_named_person=named,
                         safeguards=guards)
            assert on.outcome is off.outcome
            assert on.activated and not off.activated
            assert not off.mark and off.echo_header is None


def test_decide_gives_on_opt_in_only_to_a_named_person() -> None:
    d = decide(A4_CARD, "service-pricing", request_extensions=None, for_named_person=True)
    assert d.outcome is Outcome.GIVE_ON_OPT_IN and d.status == "given-on-opt-in"
    d = decide(A4_CARD, "service-pricing", request_extensions=None, for_named_person=False)
    assert d.outcome is Outcome.REFER_INFORMATION
    assert d.reasons[0].startswith("OR-5.4")


def test_decide_refers_an_action_unless_every_or_5_6_condition_holds() -> None:
    a = "arrangement-booking"
    d = decide(A1, a, request_extensions=None, for_named_person=True)
    assert d.outcome is Outcome.REFER_ACTION and d.task_state == "TASK_STATE_REJECTED"
    assert "(a), (b), (c), (d)" in d.reasons[-1]
    level1 = Safeguards(level2_attestation=False, reversible_and_staff_told=True, limited=True,
                        person_confirms_irreversible=True)
    d = decide(A1, a, request_extensions=None, for_named_person=True, safeguards=level1)
    assert d.outcome is Outcome.REFER_ACTION and level1.missing() == ("a",)
    ok = Safeguards(True, True, True, True)
    d = decide(A1, a, request_extensions=None, for_named_person=True, safeguards=ok)
    assert d.outcome is Outcome.CARRY_OUT and d.status is None and d.task_state is None
    d = decide(A1, a, request_extensions=None, for_named_person=False, safeguards=ok)
    assert d.outcome is Outcome.REFER_ACTION
    d = decide(DEFERRED, a, request_extensions=None, for_named_person=True, safeguards=ok)
    assert d.outcome is Outcome.CARRY_OUT and d.task_state == "TASK_STATE_WORKING"


def test_decide_answers_public_and_sign_in_skills_and_rejects_unknown_ones() -> None:
    for sid in ("opening-hours", "transfer-status", "speak-to-staff"):
        assert decide(A1, sid, request_extensions=EXTENSION_URI,
                      for_named_person=False).outcome is Outcome.ANSWER
    with pytest.raises(LookupError):
        decide(A1, "nope", request_extensions=None, for_named_person=True)


def test_activation_needs_the_card_to_declare_the_extension() -> None:
    card = json.loads(json.dumps(A1))
    card["capabilities"]["extensions"] = []
    d = decide(card, "opening-hours", request_extensions=EXTENSION_URI, for_named_person=True)
    assert not d.activated and d.echo == ()


def test_echo_lists_every_activated_extension_of_the_card_in_request_order() -> None:
    card = json.loads(json.dumps(A1))
    card["capabilities"]["extensions"].append({"uri": "https://example.com/ext/b/v1"})
    header = f"https://example.com/ext/b/v1, https://unknown.example/x ,{EXTENSION_URI}"
    d = decide(card, "service-pricing", request_extensions=header, for_named_person=True)
    assert d.echo == ("https://example.com/ext/b/v1", EXTENSION_URI)


def test_parse_extensions_header() -> None:
    assert parse_extensions_header(None) == []
    assert parse_extensions_header(" a ,, b,a\t") == ["a", "b"]
    assert parse_extensions_header(["a", "b, c"]) == ["a", "b", "c"]


_uri = st.from_regex(r"https://[a-z]{1,8}\.example/[a-z0-9/]{0,8}", fullmatch=True)


@given(st.lists(st.lists(_uri, max_size=4), max_size=3), st.sampled_from(["", " ", "\t"]))
def test_parse_extensions_header_agrees_with_the_a2a_sdk(lines: list[list[str]],
                                                           ows: str) -> None:
    from a2a.extensions.common import get_requested_extensions

    values = [f",{ows}".join(line) for line in lines]
    assert set(parse_extensions_header(values)) == get_requested_extensions(values)


def test_extension_uri_is_the_one_the_card_uses() -> None:
    from acap.uris import EXTENSION_URI as CARD_URI

    assert EXTENSION_URI == CARD_URI


def test_on_request_skills_reads_leniently() -> None:
    card = {"capabilities": {"extensions": [{"uri": EXTENSION_URI, "params": {"skills": [
        {"id": "a", "personEntry": PE, "assistantAccess": "yes"},
        {"id": "a", "personEntry": "https://other.example/"}, {"personEntry": PE}, 7]}}]}}
    got = on_request_skills(card)
    assert list(got) == ["a"] and got["a"].assistant_access is False
    assert got["a"].person_entry == PE


# -- builder misuse raises ---------------------------------------------------------------

def test_builder_refuses_text_without_the_person_entry() -> None:
    s = skill(A1, "service-pricing")
    with pytest.raises(ValueError, match="personEntry"):
        refer_information(s, activated=True, message_id="m", text="Ask the chapel.")
    with pytest.raises(ValueError, match="did not exist"):
        refer_information(s, activated=True, message_id="m",
                          text=f"We have no information on prices. Ask: {PE}")
    with pytest.raises(ValueError, match="operator"):
        refer_information(s, activated=True, message_id="m")
    with pytest.raises(ValueError, match="contextId"):
        refer_information(s, activated=True, message_id="m", operator="X", task_id="t")


def test_builder_refuses_to_give_what_is_not_opened() -> None:
    with pytest.raises(ValueError, match="not opened"):
        opt_in_artifact(skill(A1, "service-pricing"), activated=True, artifact_id="a",
                        text="x")
    with pytest.raises(ValueError, match="exactly one"):
        opt_in_artifact(skill(A4_CARD, "service-pricing"), activated=True, artifact_id="a")


def test_defer_action_never_says_done() -> None:
    s = skill(DEFERRED, "arrangement-booking")
    t = defer_action(s, message_id="m", task_id="t", context_id="c")
    assert t["status"]["state"] == "TASK_STATE_WORKING"
    with pytest.raises(ValueError, match=r"OR-5\.8"):
        defer_action(s, message_id="m", task_id="t", context_id="c",
                     text="Your meeting is booked.")
    with pytest.raises(ValueError, match="deferred"):
        defer_action(skill(A1, "arrangement-booking"), message_id="m", task_id="t",
                     context_id="c")


def test_reply_object_and_mark() -> None:
    s = skill(A4_CARD, "service-pricing")
    assert reply_object(s, "given-on-opt-in", include_person_entry=False) == {
        "status": "given-on-opt-in", "skillId": "service-pricing"}
    # include_person_entry=False never drops it from a referral
    assert reply_object(s, "on-request", include_person_entry=False)["personEntry"] == PE
    with pytest.raises(ValueError):
        reply_object(s, "done-on-opt-in")
    art = {"artifactId": "a", "parts": [{"text": "x"}], "extensions": ["https://o.example/e"],
           "metadata": {"https://o.example/e": {"k": 1}}}
    marked = mark(art, reply_object(s, "given-on-opt-in"))
    assert marked["extensions"] == ["https://o.example/e", EXTENSION_URI]
    assert marked["metadata"]["https://o.example/e"] == {"k": 1}
    assert art["extensions"] == ["https://o.example/e"]  # the input is not changed
    assert mark(marked, reply_object(s, "given-on-opt-in"))["extensions"].count(
        EXTENSION_URI) == 1


def test_tel_person_entry_is_written_as_a_person_dials_it() -> None:
    s = skill(TEL, "service-pricing")
    m = refer_information(s, activated=True, message_id="m", operator="The chapel",
                          what="its prices")
    assert m["parts"][0]["text"].endswith("You can ask here: +44 20 7946 0000")
    assert m["metadata"][EXTENSION_URI]["personEntry"] == "tel:+44-20-7946-0000"


# -- round trip: every reply the builder makes passes the checker -------------------------

def _build_for(card: Any, sid: str, *, header: str | None, named: bool,
               guards: Safeguards | None, task: bool) -> tuple[Any, Any]:
    d = decide(card, sid, request_extensions=header, for_named_person=named, safeguards=guards)
    ids: dict[str, Any] = {"task_id": "t-1", "context_id": "c-1"} if task else {}
    if d.outcome is Outcome.REFER_INFORMATION:
        return d, refer_information(d.skill, activated=d.activated, message_id="m-1",
                                    operator="Example Memorial Chapel", what="its prices",
                                    **ids)
    if d.outcome is Outcome.REFER_ACTION:
        return d, refer_action(d.skill, activated=d.activated, message_id="m-1",
                               action="book this meeting", **ids)
    if d.outcome is Outcome.GIVE_ON_OPT_IN:
        return d, give_on_opt_in(d.skill, activated=d.activated, task_id="t-1",
                                 context_id="c-1", artifact_id="a-1", text="[the price]")
    if d.outcome is Outcome.CARRY_OUT and d.skill is not None and d.skill.deferred:
        return d, defer_action(d.skill, message_id="m-1", task_id="t-1", context_id="c-1")
    return d, None


@pytest.mark.parametrize("card_name", ["annex-a1", "annex-a4-opted-in", "deferred-booking",
                                       "tel-entry"])
def test_builder_output_passes_the_checker(card_name: str) -> None:
    card = card_data(card_name)
    built = 0
    for sid, header, named, guards, task in itertools.product(
            list(on_request_skills(card)), [EXTENSION_URI, None], [True, False],
            [None, Safeguards(True, True, True, True)], [True, False]):
        d, reply = _build_for(card, sid, header=header, named=named, guards=guards, task=task)
        if reply is None:
            continue
        built += 1
        found = check_reply(reply, card, activated=d.activated, skill_id=sid,
                            for_named_person=named,
                            safeguards_hold=None if guards is None else guards.all_hold,
                            response_extensions=d.echo_header or "").findings
        assert found == [], (sid, d.outcome, [finding_text(f) for f in found])
    assert built >= 8


def test_builder_replies_with_and_without_activation_compare_equal() -> None:
    for card, sid, named in [(A1, "service-pricing", True), (A4_CARD, "service-pricing", True),
                             (A1, "arrangement-booking", True)]:
        _, on = _build_for(card, sid, header=EXTENSION_URI, named=named, guards=None, task=True)
        _, off = _build_for(card, sid, header=None, named=named, guards=None, task=True)
        assert compare_replies(on, off, card, skill_id=sid, for_named_person=named).findings == []


# -- checker API details ------------------------------------------------------------------

def test_check_reply_takes_a_path_bytes_or_parsed_json() -> None:
    path = CASES / "or-6.2-text-lacks-entry.json"
    text = path.read_text(encoding="utf-8")
    from_path = check_reply(str(path), A1, activated=True).findings
    assert [(f.rule, f.location.file, f.location.line) for f in from_path] == [
        ("OR-6.2", str(path), 4)]
    from_bytes = check_reply(text.encode(), A1, activated=True, source="r.json").findings
    assert [(f.rule, f.location.file, f.location.line) for f in from_bytes] == [
        ("OR-6.2", "r.json", 4)]
    from_data = check_reply(json.loads(text), A1, activated=True).findings
    assert [(f.rule, f.location.line, f.location.pointer) for f in from_data] == [
        ("OR-6.2", None, "/parts")]


def test_finding_points_into_the_reply_with_pointer_and_column() -> None:
    f, = check_reply(read_reply(CASES / "or-6.1-person-entry-differs.json"), A1,
                     activated=True).findings
    assert f.location.pointer == f"/metadata/{EXTENSION_URI.replace('/', '~1')}/personEntry"
    assert (f.location.line, f.location.column) == (12, 22)
    assert finding_json(f)["doc"].endswith("#OR-6.1")


def test_unreadable_and_hostile_replies_are_findings(tmp_path: Path) -> None:
    rf = read_reply(tmp_path / "missing.json")
    assert [f.rule for f in rf.findings] == ["REPLY-READ"]
    assert check_reply(rf, A1, activated=True).findings[0].rule == "REPLY-READ"
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (1024 * 1024 + 1))
    assert [f.rule for f in read_reply(big).findings] == ["REPLY-READ"]
    assert [f.rule for f in parse_reply(b"\xff\xfe{").findings] == ["REPLY-JSON"]
    deep = b"[" * 100_000 + b"]" * 100_000
    found = check_reply(deep, A1, activated=True).findings
    assert found and all(f.rule in ("REPLY-JSON", "REPLY-SHAPE") for f in found)
    assert [f.rule for f in check_reply(b"[]", A1, activated=True).findings] == ["REPLY-SHAPE"]
    assert [f.rule for f in check_reply(b'"text"', A1, activated=True).findings] == ["REPLY-SHAPE"]


def test_a_card_without_the_extension_is_one_finding() -> None:
    card = json.loads(json.dumps(A1))
    del card["capabilities"]["extensions"]
    found = check_reply(annex("a2-information-referred"), card, activated=True).findings
    assert [(f.rule, f.level) for f in found] == [("REPLY-SKILL", "error")]


def test_a_public_skill_named_by_the_caller_is_a_warning_only() -> None:
    found = check_reply(annex("plain-referral"), A1, activated=False,
                        skill_id="opening-hours").findings
    assert [(f.rule, f.level) for f in found] == [("REPLY-SKILL", "warning")]


def test_a_jsonrpc_error_for_an_on_request_skill_is_not_a_referral() -> None:
    err = {"jsonrpc": "2.0", "id": "1", "error": {"code": -32603, "message": "not available"}}
    found = check_reply(err, A1, activated=False, skill_id="service-pricing").findings
    assert sorted((f.rule, f.level) for f in found) == [("OR-5.3", "error"),
                                                         ("OR-5.3", "warning")]


def test_compare_finds_different_task_states() -> None:
    on = annex("a2-in-task")
    off = json.loads(json.dumps(on))
    del off["status"]["message"]["metadata"], off["status"]["message"]["extensions"]
    off["status"]["state"] = "TASK_STATE_FAILED"
    found = compare_replies(on, off, A1).findings
    assert sorted(f.rule for f in found) == ["OR-5.1", "REPLY-TASK-STATE"]


# -- text heuristics --------------------------------------------------------------------------

@pytest.mark.parametrize("text,entry,want", [
    (f"Ask here: {PE}.", PE, True),
    ("Ask here: ask.example.com/talk/", PE, True),
    ("Ask here: https://ASK.example.com/talk", PE, True),
    ("Ask here: http://ask.example.com/talk", PE, False),
    ("Ask here: https://ask.example.com/talking", PE, False),
    ("Ask here: https://ask.example.com/", PE, False),
    ("Ring 020 7946 0000 today", "tel:+44-20-7946-0000", True),
    ("Ring +44 20 7946 0000", "tel:+44-20-7946-0000", True),
    ("Ring +44 20 7946 0001", "tel:+44-20-7946-0000", False),
    ("", PE, False),
])
def test_mentions_person_entry(text: str, entry: str, want: bool) -> None:
    assert mentions_person_entry(text, entry) is want


def test_phrase_heuristics() -> None:
    assert denies_existence("We don't have that information.") == "don't have that"
    assert denies_existence("The chapel does not publish its prices; ask here.") is None
    assert claims_done("Your meeting has been booked.") == "has been booked"
    assert claims_done("It has not been booked yet; staff will confirm.") is None
    assert claims_done("It will be confirmed by staff.") is None


def test_the_replies_page_example_runs_and_makes_annex_a2() -> None:
    """The first Python example of docs/replies.md, run as it is on the Annex A.1 card."""
    from types import SimpleNamespace

    from support.paths import REPO

    page = (REPO / "docs" / "replies.md").read_text(encoding="utf-8")
    code = page[page.index("```python\n") + 10:]
    code = code[:code.index("```")]
    request = SimpleNamespace(headers={"A2A-Extensions": EXTENSION_URI})
    scope: dict[str, Any] = {"card": A1, "request": request}
    exec(compile(code, "docs/replies.md", "exec"), scope)
    assert scope["reply"] == annex("a2-information-referred")


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5)
    | st.sampled_from([EXTENSION_URI, "ROLE_AGENT", "TASK_STATE_COMPLETED", "on-request",
                       "given-on-opt-in", "service-pricing", PE]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["messageId", "role", "parts", "text", "metadata", "extensions",
                         "id", "contextId", "status", "state", "message", "artifacts",
                         "artifactId", "task", "result", "jsonrpc", "error", "statusUpdate",
                         "artifactUpdate", "artifact", "status", "skillId", "personEntry",
                         EXTENSION_URI]), inner, max_size=5),
    max_leaves=25)


@given(_json, st.booleans())
def test_check_reply_never_raises(data: Any, activated: bool) -> None:
    data = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data  # not a path
    for f in check_reply(data, A1, activated=activated, skill_id=None).findings:
        assert f.level in ("error", "warning") and f.rule
    assert check_reply(data, A4_CARD, activated=activated, skill_id="service-pricing",
                       for_named_person=False).source == "reply"
    assert compare_replies(data, data, DEFERRED, skill_id="arrangement-booking").source \
        == "activated"
