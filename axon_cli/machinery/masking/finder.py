"""The prefilter: one pass over a text finds every line where a rule may apply.

Anchors are literal strings (all-lowercase: matched in any case). ``Hits`` says, per line, which
rules to try, and whether an environment secret or a PEM key (or another block rule's mark) occurs at all. Two backends give the
same answer: Hyperscan (one compiled scan of all anchors, used for large texts when the wheel is
installed) and the standard library (``str.find`` per anchor on the lowercased text, as before).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Hits", "Finder", "PEM_MARK", "HYPERSCAN_MIN"]

PEM_MARK = "PRIVATE KEY"
HYPERSCAN_MIN = 1 << 15     # texts shorter than this are scanned with str.find (no import, no compile)
_NON_ASCII = rb"[\x80-\xff]"  # the last pattern: reported once per scan (the in-place path needs ASCII)
_KELVIN = "\u212a"          # the one character whose lowercase is ASCII (k) at the same length
log = logging.getLogger("axon.masking")


@dataclass
class Hits:
    lines: dict[tuple[int, int], set[int]] = field(default_factory=dict)
    env: bool = False
    pem: bool = False
    everywhere: bool = False    # lowercasing changed the text's length: every rule on the whole text
    non_ascii: bool = False     # (Hyperscan only) a byte above 0x7f occurs


def _line_of(text: str, i: int) -> tuple[int, int]:
    start = text.rfind("\n", 0, i) + 1
    end = text.find("\n", i)
    return start, len(text) if end < 0 else end


class Finder:
    """Anchor → rule indexes; env values and the PEM marker are found in the same pass."""

    def __init__(self, anchors: Sequence[tuple[str, int]], env_values: Sequence[str],
                 marks: Sequence[str] = (PEM_MARK,)) -> None:
        by_anchor: dict[str, list[int]] = {}
        for anchor, index in anchors:
            by_anchor.setdefault(anchor, []).append(index)
        self.anchors = list(by_anchor.items())
        self.env_values = list(env_values)
        self.marks = list(marks)          # exact strings that set ``Hits.pem`` (a block may begin)
        self._db: Any = None
        self._db_failed = False
        self._scratch = threading.local()   # Hyperscan scratch space serves one scan at a time

    # -- standard library ---------------------------------------------------------------------
    def find(self, text: str, low: str) -> Hits:
        hits = Hits(env=any(v in text for v in self.env_values), pem=any(m in text for m in self.marks))
        if len(low) != len(text):
            hits.everywhere = True
            return hits
        for anchor, rules in self.anchors:
            haystack = low if anchor == anchor.lower() else text
            i = haystack.find(anchor)
            while i >= 0:
                line = _line_of(text, i)
                hits.lines.setdefault(line, set()).update(rules)
                i = haystack.find(anchor, line[1])
        return hits

    # -- hyperscan ------------------------------------------------------------------------------
    @property
    def ready(self) -> bool:
        """Whether the Hyperscan database is compiled already (then even short texts use it)."""
        return self._db is not None

    def find_fast(self, text: str) -> Hits | None:
        """The same hits through Hyperscan, or None when it cannot answer exactly (not installed,
        failed to compile, or a text with a Kelvin sign, which only ``str.lower`` maps to ``k``)."""
        if not text.isascii() and _KELVIN in text:
            return None
        data = text.encode("utf-8", "surrogatepass")
        hits = self.find_bytes(data)
        if hits is not None and len(data) != len(text):
            hits.lines = _to_chars(data, hits.lines)
        return hits

    def find_bytes(self, raw: bytes | bytearray, start: int = 0, stop: int | None = None) -> Hits | None:
        """Hits in the UTF-8 bytes ``raw[start:stop]``, offsets relative to ``start``; None
        without Hyperscan. Nothing is copied."""
        db = self._database()
        if db is None:
            return None
        stop = len(raw) if stop is None else stop
        found: list[tuple[int, int]] = []
        db.scan(memoryview(raw)[start:stop], scratch=self._thread_scratch(db),
                match_event_handler=lambda id_, _from, to, _flags, _ctx: found.append((id_, to)))
        hits = Hits()
        n_anchor, n_env = len(self.anchors), len(self.env_values)
        for id_, to in found:
            if id_ < n_anchor:
                at = start + to - 1
                nl = raw.rfind(b"\n", start, at)
                end = raw.find(b"\n", at, stop)
                line = ((start if nl < 0 else nl + 1) - start, (stop if end < 0 else end) - start)
                hits.lines.setdefault(line, set()).update(self.anchors[id_][1])
            elif id_ < n_anchor + n_env:
                hits.env = True
            elif id_ < n_anchor + n_env + len(self.marks):
                hits.pem = True
            else:
                hits.non_ascii = True
        return hits

    def _thread_scratch(self, db: Any) -> Any:
        """This thread's scratch space: the database's own one is shared, and a second thread
        scanning while the first does (a background job's reader) fails with ScratchInUseError."""
        scratch = getattr(self._scratch, "space", None)
        if scratch is None:
            import hyperscan

            scratch = self._scratch.space = hyperscan.Scratch(db)
        return scratch

    def _database(self) -> Any:
        if self._db is not None or self._db_failed:
            return self._db
        try:
            import hyperscan

            literals = [_escape(a) for a, _ in self.anchors] + [_escape(v) for v in self.env_values]
            literals += [_escape(m) for m in self.marks] + [_NON_ASCII]
            flags = [hyperscan.HS_FLAG_CASELESS if a == a.lower() else 0 for a, _ in self.anchors]
            flags += [0] * (len(self.env_values) + len(self.marks)) + [hyperscan.HS_FLAG_SINGLEMATCH]
            db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
            db.compile(expressions=literals, ids=list(range(len(literals))), elements=len(literals), flags=flags)
            self._db = db
        except Exception as e:  # no wheel for this platform, no SSSE3, …: the stdlib path is exact too
            log.debug("hyperscan unavailable: %s", e)
            self._db_failed = True
        return self._db


def _escape(literal: str) -> bytes:
    return b"".join(b"\\x%02x" % byte for byte in literal.encode("utf-8"))


def _to_chars(data: bytes, byte_lines: dict[tuple[int, int], set[int]]) -> dict[tuple[int, int], set[int]]:
    """Byte offsets of lines → character offsets (decoding only the stretches between them)."""
    out: dict[tuple[int, int], set[int]] = {}
    byte_pos = char_pos = 0
    for (start, end), rules in sorted(byte_lines.items()):
        char_pos += len(data[byte_pos:start].decode("utf-8", "surrogatepass"))
        length = len(data[start:end].decode("utf-8", "surrogatepass"))
        out[(char_pos, char_pos + length)] = rules
        byte_pos = start
    return out
