"""GNU sed, read the way sed reads it: what an invocation does beyond printing (edits in place, reads
or writes files, runs programs). Anything the scanner does not know counts as "cannot be read"."""

from __future__ import annotations

__all__ = ["sed_effect"]

_SED_SAFE_LONG = frozenset({"--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered",
                            "--null-data", "--posix", "--debug", "--sandbox", "--binary", "-s"})


def sed_effect(args: list[str]) -> str | None:
    """What this sed invocation does beyond printing: "edits in place", "reads files", "writes files",
    "runs programs" or "cannot be read" (a script file, an unknown option or command); None: only prints."""
    scripts: list[str] = []
    operands: list[str] = []
    effects: set[str] = set()
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            operands += args[i + 1:]
            break
        if a.startswith("--"):
            opt, eq, value = a.partition("=")
            if opt == "--expression":
                if not eq:
                    i += 1
                    value = args[i] if i < len(args) else ""
                scripts.append(value)
            elif opt == "--line-length":
                i += 0 if eq else 1
            elif opt == "--in-place":
                effects.add("edits in place")
            elif opt not in _SED_SAFE_LONG:
                return "cannot be read"       # --file, --follow-symlinks, unknown
        elif a.startswith("-") and len(a) > 1:
            j = 1
            while j < len(a):
                c = a[j]
                if c in "nrEsuzb":
                    j += 1
                    continue
                if c == "i":                  # -i[SUFFIX]: the rest of the word is the backup suffix
                    effects.add("edits in place")
                    break
                if c in "el":
                    value = a[j + 1:]
                    if not value:
                        i += 1
                        value = args[i] if i < len(args) else ""
                    if c == "e":
                        scripts.append(value)
                    break
                return "cannot be read"       # -f (script file), unknown letters
        else:
            operands.append(a)
        i += 1
    if not scripts:
        if not operands:
            return "cannot be read"
        scripts.append(operands[0])
    for script in scripts:
        effect = _sed_script_effect(script)
        if effect is not None:
            return effect
    return next(iter(effects), None)


def _skip_regex(s: str, pos: int, delim: str) -> int:
    """Index just past the unescaped ``delim`` closing a regex/replacement starting at ``pos``; -1 if none."""
    while pos < len(s):
        c = s[pos]
        if c == "\\":
            pos += 2
            continue
        if c == delim:
            return pos + 1
        if c == "\n":
            return -1
        pos += 1
    return -1


def _sed_address(s: str, pos: int) -> int:
    """Past one address (number, ``$``, ``/re/``, ``\\cREc``, ``first~step``), or ``pos`` if none; -1 on error."""
    if pos < len(s) and s[pos].isdigit():
        while pos < len(s) and (s[pos].isdigit() or s[pos] == "~"):
            pos += 1
        return pos
    if pos < len(s) and s[pos] == "$":
        return pos + 1
    if pos < len(s) and s[pos] in "/\\":
        delim = "/"
        if s[pos] == "\\":
            if pos + 1 >= len(s):
                return -1
            delim, pos = s[pos + 1], pos + 1
        pos = _skip_regex(s, pos + 1, delim)
        while pos != -1 and pos < len(s) and s[pos] in "IM":
            pos += 1
        return pos
    return pos


_SED_FAILURES = {-1: "cannot be read", -2: "writes files", -3: "runs programs", -4: "reads files"}


def _sed_script_effect(s: str) -> str | None:
    pos, n, reads = 0, len(s), False
    while pos < n:
        while pos < n and s[pos] in " \t\n;":
            pos += 1
        if pos >= n:
            break
        if s[pos] == "#":
            while pos < n and s[pos] != "\n":
                pos += 1
            continue
        pos = _sed_address(s, pos)
        if pos != -1 and pos < n and s[pos] == ",":
            pos += 1
            if pos < n and s[pos] in "+~":
                pos += 1
            pos = _sed_address(s, pos)
        if pos == -1:
            return "cannot be read"
        while pos < n and s[pos] in " \t!":
            pos += 1
        if pos >= n:
            return "cannot be read"
        start, pos = pos, _sed_command(s, pos)
        if pos == -4:                         # r FILE / R FILE: the file name runs to the end of the line
            reads, pos = True, _to_end_of_line(s, start + 1)
        elif pos < 0:
            return _SED_FAILURES[pos]
    return "reads files" if reads else None


def _to_end_of_line(s: str, pos: int, stop: str = "\n") -> int:
    while pos < len(s) and s[pos] not in stop:
        pos += 2 if s[pos] == "\\" else 1
    return pos


def _sed_command(s: str, pos: int) -> int:
    """Past one command and its arguments; -2 when it writes a file, -3 when it runs a program, -4 when
    it reads a file, -1 when it is unknown."""
    c, pos = s[pos], pos + 1
    if c == "{":
        return pos
    if c in "}=dDgGhHnNpPxzF":
        pass
    elif c in "aic":
        return _to_end_of_line(s, pos)
    elif c in ":btTv":
        return _to_end_of_line(s, pos, "\n;")
    elif c in "lLqQ":
        while pos < len(s) and (s[pos].isdigit() or s[pos] in " \t"):
            pos += 1
    elif c in "sy":
        if pos >= len(s) or s[pos] in "\n\\":
            return -1
        delim = s[pos]
        pos = _skip_regex(s, pos + 1, delim)
        pos = _skip_regex(s, pos, delim) if pos != -1 else -1
        if pos == -1:
            return -1
        while c == "s" and pos < len(s) and (s[pos] in "gpiImM" or s[pos].isdigit()):
            pos += 1
        if c == "s" and pos < len(s) and s[pos] in "we":
            return -2 if s[pos] == "w" else -3
    elif c in "wW":
        return -2
    elif c == "e":
        return -3
    elif c in "rR":
        return -4
    else:
        return -1
    while pos < len(s) and s[pos] in " \t":
        pos += 1
    return pos if pos >= len(s) or s[pos] in ";\n}#" else -1
