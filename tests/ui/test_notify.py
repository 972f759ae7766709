"""The notification escape for each terminal, and that a message cannot end the escape early."""

from __future__ import annotations

import io

from axon_cli.app.ui.notify import BEL, Notifier, osc_kind, sequence


def test_terminals_get_their_own_escape_and_others_the_bell() -> None:
    assert osc_kind({"TERM_PROGRAM": "iTerm.app"}) == "9" and osc_kind({"WT_SESSION": "x"}) == "9"
    assert osc_kind({"TERM": "xterm-kitty"}) == "99" and osc_kind({"TERM": "foot"}) == "777"
    assert sequence("osc", "hi", {"TERM_PROGRAM": "ghostty"}) == "\x1b]9;hi\x07"
    assert sequence("osc", "hi", {"TERM": "xterm-kitty"}) == "\x1b]99;;hi\x1b\\"
    assert sequence("osc", "hi", {"TERM": "rxvt-unicode-256color"}) == "\x1b]777;notify;axon;hi\x07"
    assert sequence("osc", "hi", {"TERM": "xterm-256color"}) == BEL
    assert sequence("bell", "hi", {"TERM_PROGRAM": "WezTerm"}) == BEL and sequence("off", "hi", {}) == ""


def test_control_characters_and_separators_are_dropped_from_the_message() -> None:
    assert sequence("osc", "a\x07b\x1b]9;c;d\n", {"TERM": "foot"}) == "\x1b]777;notify;axon;ab]9cd\x07"


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_only_a_terminal_is_rung_and_only_after_a_long_turn() -> None:
    piped, tty = io.StringIO(), _Tty()
    Notifier("bell", 30, out=piped).ring("x")
    Notifier("bell", 30, out=tty).turn_ended(29.0)
    assert piped.getvalue() == "" and tty.getvalue() == ""
    Notifier("bell", 30, out=tty).turn_ended(30.0)
    assert tty.getvalue() == BEL
