"""Secrets that span lines: a PuTTY key's private lines, and a PEM private key encoded in base64.

A PuTTY ``.ppk`` file holds its key as ``Private-Lines: N`` and N lines of base64 (no line says
"PRIVATE KEY"), each perhaps behind a line number (``read_file``, ``cat -n``, ``grep -n``); a kubeconfig's ``client-key-data:`` is one long base64 line of a whole PEM file, and
``base64 key.pem`` prints the same wrapped at 76 columns. Both begin with a fixed text
(``Private-Lines:``; ``LS0tLS1CRUdJTi`` is base64 of ``-----BEGIN``), found by the prefilter as a
mark like "PRIVATE KEY". A base64 block is masked only when its first bytes decode to a private
key's header (a certificate's ``client-certificate-data`` is left alone).

These rules work on the whole text (``Rule.pending`` set): the masker applies them where a mark
occurs, and streaming holds text back from where a block begins until it has ended.
"""

from __future__ import annotations

import binascii
import re

from axon_cli.machinery.masking.assign import REDACTED
from axon_cli.machinery.masking.rule_shape import Rule

__all__ = ["BLOCK_RULES", "block_marks"]

_NL = re.compile(r"\r?\n|(?:\\r)?\\n")         # a line break, or one written as a JSON escape
_PUTTY = re.compile(r"Private-Lines:[ \t]*(\d{1,4})[ \t]*(?:\r?\n|(?:\\r)?\\n)")
_B64_LINE = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_B64_PEM = re.compile(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]*={0,2}")
_WRAPPED = 60                               # a line at least this long may continue on the next
_GUTTER = re.compile(r"[ \t]*\d{1,9}[\t:-]")   # a line number before the line (read_file, cat -n, grep -n)


def _ends_line(text: str, i: int) -> bool:
    return i == len(text) or text[i] in "\"'" or _NL.match(text, i) is not None


def _putty_extent(text: str, m: re.Match[str]) -> tuple[int, bool]:
    """Where the N private lines after the ``Private-Lines: N`` line ``m`` end, and whether fewer
    than N arrived before the end of ``text`` (more may follow)."""
    end = pos = m.end()
    for _ in range(int(m.group(1))):
        if pos == len(text):
            return end, True
        gutter = _GUTTER.match(text, pos)
        if gutter is not None:
            pos = gutter.end()
        line = _B64_LINE.match(text, pos)
        if line is None or not _ends_line(text, line.end()):
            return end, False
        end = line.end()
        brk = _NL.match(text, end)
        if brk is None:
            return end, end == len(text)
        pos = brk.end()
    return end, False


def _sub_putty(text: str) -> str:
    out, pos = [], 0
    for m in _PUTTY.finditer(text):
        if m.start() < pos:
            continue
        end, _ = _putty_extent(text, m)
        if end > m.end():
            out += [text[pos:m.end()], REDACTED]
            pos = end
    return "".join(out) + text[pos:] if out else text


def _putty_pending(text: str) -> int | None:
    last = None
    for m in _PUTTY.finditer(text):
        last = m
    if last is None:
        return None
    _, open_ended = _putty_extent(text, last)
    return text.rfind("\n", 0, last.start()) + 1 if open_ended else None


def _b64_extent(text: str, m: re.Match[str]) -> tuple[int, bool]:
    """Where a base64 block starting at ``m`` ends (wrapped lines of the same width follow it), and
    whether it reaches the end of ``text`` still open (a next line could continue it)."""
    end, width = m.end(), m.end() - m.start()
    if not _ends_line(text, end):
        return end, False
    while width >= _WRAPPED:
        brk = _NL.match(text, end)
        if brk is None:
            return end, end == len(text)
        if brk.end() == len(text):
            return end, True
        gutter = _GUTTER.match(text, brk.end())
        line = _B64_LINE.match(text, gutter.end() if gutter is not None else brk.end())
        if line is None or not _ends_line(text, line.end()) or len(line.group()) > width:
            return end, False
        end = line.end()
        if len(line.group()) < width:          # the last, shorter line of a wrapped block
            return end, False
    return end, False


def _private_key(encoded: str) -> bool:
    """Whether base64 text (line breaks in it) begins with a PEM private key's header."""
    lines = _NL.split(encoded)
    head = "".join([lines[0]] + [line[g.end():] if (g := _GUTTER.match(line)) else line for line in lines[1:]])[:96]
    try:
        decoded = binascii.a2b_base64(head[:len(head) - len(head) % 4])
    except (binascii.Error, ValueError):
        return False
    first = decoded.split(b"\n", 1)[0]
    return first.startswith(b"-----BEGIN ") and b"PRIVATE KEY" in first


def _sub_b64_pem(text: str) -> str:
    out, pos = [], 0
    for m in _B64_PEM.finditer(text):
        if m.start() < pos:
            continue
        end, _ = _b64_extent(text, m)
        if _private_key(text[m.start():end]):
            out += [text[pos:m.start()], REDACTED]
            pos = end
    return "".join(out) + text[pos:] if out else text


def _b64_pending(text: str) -> int | None:
    last = None
    for m in _B64_PEM.finditer(text):
        last = m
    if last is None:
        return None
    _, open_ended = _b64_extent(text, last)
    return text.rfind("\n", 0, last.start()) + 1 if open_ended else None


BLOCK_RULES: list[Rule] = [
    Rule("putty-private-key", ("Private-Lines:",), _sub_putty,
         "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\nPublic-Lines: 2\n"
         "AAAAC3NzaC1lZDI1NTE5AAAAI{b40}\n{b20}\nPrivate-Lines: 2\n{b64}\n{b88}\nPrivate-MAC: {h32}\n",
         "axon", pending=_putty_pending),
    Rule("base64-pem-private-key", ("LS0tLS1CRUdJTi",), _sub_b64_pem,
         "    client-key-data: LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQpNSUlF{b1600}=\n    token: none\n",
         "axon", pending=_b64_pending),
]


def block_marks(rules: list[Rule]) -> tuple[str, ...]:
    """The marks (anchors) of the block rules in ``rules``."""
    return tuple(a for rule in rules if rule.pending is not None for a in rule.anchors)
