"""The masker: environment values, PEM blocks, then each rule on the lines its anchors point at.

The order is the one masking always had (so the result is exactly the old one for the old rules):
environment secret values anywhere, PEM private-key blocks, the block rules (PuTTY keys, base64
PEM keys) where their marks occur, then per line the rules in table order. The prefilter (``finder.py``) finds every candidate line in one pass; a line without an
anchor is never touched by Python code.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence

from axon_cli.machinery.masking.assign import REDACTED
from axon_cli.machinery.masking.envnames import env_secret_values
from axon_cli.machinery.masking.finder import HYPERSCAN_MIN, PEM_MARK, Finder, Hits
from axon_cli.machinery.masking.rule_shape import Rule
from axon_cli.machinery.masking.rules_blocks import BLOCK_RULES, block_marks
from axon_cli.machinery.masking.rules_keywords import KEYWORD_RULES
from axon_cli.machinery.masking.rules_legacy import LEGACY_RULES, PEM, PEM_BEGIN, PEM_END
from axon_cli.machinery.masking.rules_tokens import TOKEN_RULES

__all__ = ["Masker", "RULES", "safe_boundary", "has_block_mark"]

RULES: list[Rule] = [*LEGACY_RULES, *TOKEN_RULES, *KEYWORD_RULES, *BLOCK_RULES]
_DEFAULT_MARKS = (PEM_MARK, *block_marks(RULES))


class Masker:
    """Masks known secret shapes and the values of secret-looking environment variables.

    ``rules`` (default: all of ``RULES``) is the table to apply; ``fast`` allows the Hyperscan
    prefilter for large texts (the result is the same either way).
    """

    def __init__(self, env: Mapping[str, str] | None = None, rules: Sequence[Rule] | None = None,
                 fast: bool = True) -> None:
        self.rules = list(RULES if rules is None else rules)
        self._blocks = [rule for rule in self.rules if rule.pending is not None]
        self._env_values = env_secret_values(os.environ if env is None else env)
        self._finder = Finder([(a, i) for i, rule in enumerate(self.rules) if rule.pending is None for a in rule.anchors],
                              self._env_values, (PEM_MARK, *block_marks(self._blocks)))
        self._fast = fast
        self._whole_lines_ok = not any("\n" in v for v in self._env_values)   # see mask_ascii

    def __call__(self, text: str) -> str:
        if not text:
            return text
        return self._mask(text, self._find(text))

    def prefix(self, text: str) -> tuple[str, int]:
        """Mask as much of ``text`` as can be masked before more text follows (streaming): up to
        ``safe_boundary``, found with the same single scan. Returns the masked part and its length."""
        hits = self._find(text)
        end = safe_boundary(text, self._blocks) if hits.pem else text.rfind("\n") + 1
        if end == 0:
            return "", 0
        if end < len(text):
            if hits.pem or hits.env or hits.everywhere:
                return self(text[:end]), end
            hits.lines = {line: rules for line, rules in hits.lines.items() if line[1] < end}
        return self._mask(text[:end], hits), end

    def mask_ascii(self, raw: bytes | bytearray, start: int, stop: int) -> bytes | memoryview | None:
        """Whole lines ``raw[start:stop]``, masked: the same memory when no line needs it. None when
        the general way must decide (a byte that is not ASCII, an environment secret or PEM key in
        it, or no Hyperscan); the same scan checks the bytes, so ``raw`` needs no other check."""
        hits = self._finder.find_bytes(raw, start, stop) if self._fast and self._whole_lines_ok else None
        if hits is None or hits.env or hits.pem or hits.non_ascii:
            return None
        if not hits.lines:
            return memoryview(raw)[start:stop]
        return self._mask(raw[start:stop].decode("ascii"), hits).encode("ascii")

    def _find(self, text: str) -> Hits:
        if self._fast and (len(text) >= HYPERSCAN_MIN or self._finder.ready):
            found = self._finder.find_fast(text)
            if found is not None:
                return found
        return self._finder.find(text, text.lower())

    def _mask(self, text: str, hits: Hits) -> str:
        if hits.env or hits.pem or hits.everywhere:
            for value in self._env_values:
                if value in text:
                    text = text.replace(value, REDACTED)
            if "PRIVATE KEY" in text:
                text = PEM.sub(REDACTED, text)
            for block in self._blocks:
                if any(mark in text for mark in block.anchors):
                    text = block.sub(text)
            low = text.lower()
            if len(low) != len(text):
                return self._apply(text, range(len(self.rules)))
            hits = self._finder.find(text, low)
        elif not text.isascii() and len(text.lower()) != len(text):
            return self._apply(text, range(len(self.rules)))   # a case mapping changed lengths: all, everywhere
        if not hits.lines:
            return text
        out, pos = [], 0
        for (start, end), rules in sorted(hits.lines.items()):
            out.append(text[pos:start])
            out.append(self._apply(text[start:end], sorted(rules)))
            pos = end
        out.append(text[pos:])
        return "".join(out)

    def _apply(self, line: str, indexes: Iterable[int]) -> str:
        for index in indexes:
            rule = self.rules[index]
            if rule.pending is None:
                line = rule.sub(line)
        return line


def safe_boundary(text: str, blocks: Sequence[Rule] | None = None) -> int:
    """How much of ``text`` can be masked on its own when more text follows (streaming).

    The end of the last complete line, but never past the start of a PEM private key block that
    has not ended yet, nor of another block rule's block (``blocks``, default: those of ``RULES``)
    that may go on: their lines must be masked together. 0 means: wait for more text.
    """
    end = text.rfind("\n") + 1
    if end == 0:
        return 0
    begin = None
    for m in PEM_BEGIN.finditer(text, 0, end):
        begin = m.start()
    if begin is not None and not PEM_END.search(text, begin, end):
        end = begin
    for block in BLOCK_RULES if blocks is None else blocks:
        if block.pending is not None and any(mark in text for mark in block.anchors):
            start = block.pending(text[:end])
            if start is not None:
                end = min(end, start)
    return end


def has_block_mark(text: str) -> bool:
    """Whether ``text`` holds where a block secret (PEM, PuTTY, base64 PEM) may begin (streaming
    must then take the general way, which holds such blocks back until they end)."""
    return any(mark in text for mark in _DEFAULT_MARKS)
