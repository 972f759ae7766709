"""A text call's body kept out of the streamed answer: what the user sees of a text call is the same one
call line as a native call's, not its JSON above it.

``CallHider`` sits between the model's text deltas and the ``AssistantDelta`` events. Prose passes as it
streams; from a place a call may open (``<tool_call``, a ``` fence, ``{`` at the start of a line) the
text is held until that block closes, then dropped when the protocol's own parser reads it as a call
(``is_call``, the same ``textcalls`` parser that runs it) and released otherwise — a JSON example in
prose is still shown. At the end of the reply whatever is held is decided the same way.
"""

from __future__ import annotations

from collections.abc import Callable

__all__ = ["CallHider"]

_TAG, _FENCE = "<tool_call", "```"
_OPENERS = (_TAG, _FENCE, "&lt;tool_call")


class CallHider:
    """Feed it the reply's text as it streams; it returns what may be shown now."""

    def __init__(self, is_call: Callable[[str], bool]) -> None:
        self.is_call = is_call
        self.held = ""
        self.line_start = True           # the next character starts a line
        self.after_call = False          # a call was just dropped: the newline that ends it goes too

    def feed(self, text: str) -> str:
        self.held += text
        return self._release(final=False)

    def flush(self) -> str:
        """What is left at the end of the reply, call bodies dropped."""
        return self._release(final=True)

    def _release(self, final: bool) -> str:
        shown: list[str] = []
        while self.held:
            if self.after_call:
                self.held, self.after_call = self.held.removeprefix("\n"), False
                continue
            start = self._opener()
            if start is None:                       # no block opens: all of it, but a partial opener
                keep = 0 if final else self._partial_tail()
                shown.append(self._emit(self.held[:len(self.held) - keep]))
                self.held = self.held[len(self.held) - keep:]
                break
            shown.append(self._emit(self.held[:start]))
            self.held = self.held[start:]
            end = _block_end(self.held)
            if end is None and not final:
                break                               # wait for the block to close
            block, self.held = self.held[:end], self.held[end:] if end is not None else ""
            if self.is_call(block):
                self.after_call = True
            else:
                shown.append(self._emit(block))
        return "".join(shown)

    def _emit(self, text: str) -> str:
        if text:
            self.line_start = text.endswith("\n")
        return text

    def _opener(self) -> int | None:
        found = [i for i in (self.held.find(o) for o in _OPENERS) if i >= 0]
        if self.line_start and self.held.startswith("{"):
            found.append(0)
        at = self.held.find("\n{")
        if at >= 0:
            found.append(at + 1)
        return min(found) if found else None

    def _partial_tail(self) -> int:
        """How many characters at the end may begin an opener (held until the next delta)."""
        for n in range(min(len(self.held), 13), 0, -1):
            tail = self.held[-n:]
            if any(o.startswith(tail) for o in _OPENERS):
                return n
        return 0


def _block_end(text: str) -> int | None:
    """Where the block opening ``text`` ends (after its closing tag, fence or brace), or None if open."""
    if text.startswith(("<tool_call", "&lt;tool_call")):
        close = "</tool_call>" if text.startswith("<") else "&lt;/tool_call&gt;"
        at = text.find(close)
        return None if at < 0 else at + len(close)
    if text.startswith(_FENCE):
        first = text.find("\n")
        at = text.find(_FENCE, first + 1) if first >= 0 else -1
        return None if at < 0 else at + len(_FENCE)
    return _json_end(text)


def _json_end(text: str) -> int | None:
    depth, in_string, escaped = 0, False, False
    for i, c in enumerate(text):
        if in_string:
            escaped, in_string = (not escaped and c == "\\"), in_string and (escaped or c != '"')
            continue
        if c == '"':
            in_string = True
        elif c in "{[":
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                return i + 1
    return None
