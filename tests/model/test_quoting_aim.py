"""Quote windows: where an aim is in the quoted text, and the elided window around it."""

from __future__ import annotations

import json

from toolcall_cli.model.quoting.aim import ELLIPSIS, Aim, locate, window

LINE = (
    '{"ts": "2025-03-01T12:00:05.400Z", "level": "info", "event": "tool_call.response", '
    '"msg": "Received response from send_email", "trace_id": "trace-book", '
    '"session_id": "sess-book", "tool_call_id": "call_5", "tool": "send_email", '
    '"instance": "mw-1", "status": "success", "call_id": "call_5", "size": 40}'
)


def _focus(text: str, aim: Aim) -> str:
    span = locate(text, aim)
    assert span is not None
    return text[span[0] : span[1]]


def test_a_key_aim_is_the_member_and_its_value() -> None:
    assert _focus(LINE, Aim(key="size")) == '"size": 40'
    assert _focus("GET / 200 3109 rt=0.180", Aim(key="rt")) == "rt=0.180"


def test_a_needle_matches_a_whole_number_not_part_of_a_longer_one() -> None:
    text = "took 1400 ms, then 40 bytes"
    assert locate(text, Aim(needle="40")) == (19, 21)


def test_a_needle_skips_matches_inside_words_and_never_overlaps_them() -> None:
    assert locate("call_12 call_1x call_1", Aim(needle="call_1")) == (16, 22)
    assert locate("aaaa aa", Aim(needle="aa")) == (5, 7)  # matches at 0 and 2 sit in a word
    assert locate("xaax", Aim(needle="aa")) is None


def test_a_needle_is_found_json_escaped_inside_a_quoted_message() -> None:
    content = '{"id": "XX019", "dep": "10:13", "fare'
    message = json.dumps({"role": "tool", "content": content}, separators=(",", ":"))
    assert _focus(message, Aim(needle='"dep": "10:13", "fare', tail=True)) == (
        '\\"dep\\": \\"10:13\\", \\"fare'
    )


def test_a_key_tail_aim_is_the_end_of_the_value_before_its_closing_quote() -> None:
    message = '{"role":"tool","content":"' + "x" * 100 + 'END"}'
    got = _focus(message, Aim(key="content", tail=True))
    assert got.endswith("END") and len(got) == 32


def test_an_aim_that_is_not_there_gives_none_and_a_key_falls_back_to_its_needle() -> None:
    assert locate(LINE, Aim(key="absent")) is None
    assert _focus(LINE, Aim(key="bytes", needle="40")) == "40"


def test_the_window_keeps_the_focus_elides_both_sides_and_cuts_between_tokens() -> None:
    start = LINE.index('"instance"')
    text, (s, e) = window(LINE, (start, start + len('"instance": "mw-1"')), width=80)
    assert text[s:e] == '"instance": "mw-1"'
    assert text.startswith(ELLIPSIS) and text.endswith(ELLIPSIS)
    assert len(text) <= 82
    # cut at a token boundary: the text after the mark starts a token
    assert text[1] == '"' and text[-2] in ',"'


def test_a_tail_focus_keeps_the_end_of_the_text_unelided() -> None:
    span = locate(LINE, Aim(key="size"))
    text, (s, e) = window(LINE, span, width=60)
    assert text.endswith('"size": 40}') and text[s:e] == '"size": 40'
    assert text.startswith(ELLIPSIS)


def test_without_a_focus_the_window_is_the_head_and_the_focus_is_all_of_it() -> None:
    text, focus = window(LINE, None, width=60)
    assert text.startswith('{"ts"') and text.endswith(ELLIPSIS)
    assert focus == (0, len(text))
    assert window("short", None) == ("short", (0, 5))


def test_a_focus_longer_than_the_window_keeps_its_end() -> None:
    long = "a " * 200 + "CUT"
    text, (_, e) = window(long, (10, len(long)), 50)
    assert text.endswith("CUT") and e == len(text)
