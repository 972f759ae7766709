"""What programs do to existing paths through their own options and operands: the file an output
option names (``sort -o``, ``curl -o``, ``wget -O``, ``-o``/``--output`` of a program not modelled),
the inputs a compressor replaces (``gzip`` without ``-k``), ``patch -o``, the last operand
``convert`` writes, the images ``mogrify`` rewrites, ``split``'s first chunk, ``ffmpeg``'s outputs.

One small spec a program (``SPECS``): the options that take a value, the ones whose value is a file it
writes whole, whether its operands are inputs it removes, and the options that keep them. Files
named inside an archive or a patch are not words of the command: ``opaque`` owns those (they always
ask). Pure; the disk decides which words exist.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Changes", "Spec", "SPECS", "parse", "program_changes"]


@dataclass
class Changes:
    deletes: list[str] = field(default_factory=list)
    overwrites: list[str] = field(default_factory=list)
    edits: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Spec:
    short_values: str = ""                      # short options that take a value (attached or the next word)
    long_values: frozenset[str] = frozenset()   # long options that take a value (``=v`` or the next word)
    outputs: frozenset[str] = frozenset()       # options whose value is a file written whole
    removes_inputs: bool = False                # its file operands are removed (replaced by an output)
    keeps: frozenset[str] = frozenset()         # options that keep the inputs (``-k``, ``-c``, ``--test``)
    removes: frozenset[str] = frozenset()       # options that remove the inputs (``zstd --rm``)


def _set(*names: str) -> frozenset[str]:
    return frozenset(names)


_GZIP = Spec("S", _set("--suffix"), removes_inputs=True,
             keeps=_set("-k", "-c", "-t", "-l", "--keep", "--stdout", "--to-stdout", "--test", "--list"))
_BZIP2 = Spec("", removes_inputs=True, keeps=_set("-k", "-c", "-t", "--keep", "--stdout", "--test"))
_XZ = Spec("TMFCS", _set("--suffix", "--format", "--check", "--threads", "--memlimit", "--memory",
                         "--memlimit-compress", "--memlimit-decompress", "--block-size", "--files", "--files0"),
           removes_inputs=True, keeps=_set("-k", "-c", "-t", "-l", "--keep", "--stdout", "--to-stdout", "--test",
                                           "--list"))
_ZSTD = Spec("oDTBM", _set("--output", "--format", "--memory", "--patch-from", "--output-dir-flat",
                           "--output-dir-mirror", "--filelist", "--threads", "-o"), outputs=_set("-o"),
             removes=_set("--rm"))
_CURL_VALUES = "AbcCdDeEFHKmoPQrtTuUwxXyYz"
SPECS: dict[str, Spec] = {
    "gzip": _GZIP, "gunzip": _GZIP, "pigz": Spec("Sbp", _GZIP.long_values | {"--blocksize", "--processes"},
                                                 removes_inputs=True, keeps=_GZIP.keeps),
    "unpigz": _GZIP, "bzip2": _BZIP2, "bunzip2": _BZIP2, "pbzip2": _BZIP2, "lzip": _BZIP2,
    "compress": Spec("b", removes_inputs=True, keeps=_set("-c")), "uncompress": Spec("", removes_inputs=True, keeps=_set("-c")),
    "xz": _XZ, "unxz": _XZ, "lzma": _XZ, "unlzma": _XZ,
    "zstd": _ZSTD, "unzstd": _ZSTD, "lz4": Spec("B", removes=_set("--rm")), "unlz4": Spec("", removes=_set("--rm")),
    "sort": Spec("kostST", _set("--key", "--output", "--field-separator", "--buffer-size", "--temporary-directory",
                                "--parallel", "--batch-size", "--files0-from", "--compress-program"),
                 outputs=_set("-o", "--output")),
    "curl": Spec(_CURL_VALUES, _set("--output", "--dump-header", "--cookie-jar", "--trace", "--trace-ascii",
                                    "--stderr", "--etag-save", "--libcurl", "--output-dir", "--url", "--data",
                                    "--header", "--request", "--user", "--config", "--max-time", "--form",
                                    "--upload-file", "--proxy", "--data-raw", "--data-binary", "--json"),
                 outputs=_set("-o", "--output", "-D", "--dump-header", "-c", "--cookie-jar", "--trace",
                              "--trace-ascii", "--stderr", "--etag-save", "--libcurl")),
    "wget": Spec("OoaPtTweiBUQlARDIX", _set("--output-document", "--output-file", "--append-output",
                                            "--directory-prefix", "--input-file", "--header", "--user",
                                            "--password", "--tries", "--timeout", "--user-agent"),
                 outputs=_set("-O", "--output-document", "-o", "--output-file")),
}
# `-o FILE`/`--output FILE` of a program not modelled here: a file it writes. These use -o for something
# else (an option string, a format, only-matching), or are read-only and checked elsewhere.
_OTHER_O = _set("ssh", "scp", "sftp", "sshfs", "mount", "autossh", "pytest", "py.test", "make", "gmake", "ps",
                "ls", "grep", "egrep", "fgrep", "rg", "ag", "git", "lsblk", "findmnt", "ss", "netstat", "column",
                "xdg-open", "docker", "podman", "kubectl", "sed", "awk", "gawk", "mawk", "perl", "ruby", "python",
                "python3", "node", "bash", "sh", "zsh", "uniq", "join", "od", "cpio", "time", "tree", "stdbuf")
_GENERIC_OUTPUTS = _set("-o", "-out", "--output", "--out", "--outfile", "--output-file", "--out-file", "-outfile")


def parse(args: list[str], spec: Spec) -> tuple[list[tuple[str, str | None]], list[str]]:
    """``args`` as options ``(name, value)`` (short clusters split: ``-cvf x`` is -c, -v, -f x) and operands."""
    opts: list[tuple[str, str | None]] = []
    operands: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        i += 1
        if a == "--":
            return opts, operands + args[i:]
        if a.startswith("--"):
            name, eq, value = a.partition("=")
            if not eq and name in spec.long_values and i < len(args):
                value, i = args[i], i + 1
            opts.append((name, value if eq or name in spec.long_values else None))
        elif a.startswith("-") and a != "-":
            for k, letter in enumerate(a[1:], 1):
                if letter in spec.short_values:
                    rest = a[k + 1:]
                    if not rest and i < len(args):
                        rest, i = args[i], i + 1
                    opts.append((f"-{letter}", rest))
                    break
                opts.append((f"-{letter}", None))
        else:
            operands.append(a)
    return opts, operands


def _basename_of_url(url: str) -> str:
    path = url.split("://", 1)[-1].split("?", 1)[0].split("#", 1)[0]
    return path.rsplit("/", 1)[-1] if "/" in path else ""


def _joined(directory: str | None, name: str) -> str:
    return f"{directory.rstrip('/')}/{name}" if directory else name


def _from_spec(name: str, args: list[str], spec: Spec) -> Changes:
    opts, operands = parse(args, spec)
    given = {o for o, _v in opts}
    out = Changes(overwrites=[v for o, v in opts if o in spec.outputs and v and v != "-"])
    files = [w for w in operands if w != "-"]
    if (spec.removes_inputs and not given & spec.keeps) or given & spec.removes:
        out.deletes = files
    if name == "curl" and given & {"-O", "--remote-name", "--remote-name-all"}:
        folder = next((v for o, v in opts if o == "--output-dir"), None)
        out.overwrites += [_joined(folder, b) for u in operands for b in [_basename_of_url(u)] if b]
    if name == "wget":
        folder = next((v for o, v in opts if o in ("-P", "--directory-prefix")), None)
        out.edits = [v for o, v in opts if o in ("-a", "--append-output") and v]
        if given & {"-N", "--timestamping"}:
            out.overwrites += [_joined(folder, b) for u in operands for b in [_basename_of_url(u)] if b]
        if given & {"-c", "--continue"}:
            out.edits += [_joined(folder, b) for u in operands for b in [_basename_of_url(u)] if b]
    return out


def _generic(args: list[str]) -> Changes:
    """A program not modelled: the value of ``-o``/``--output``/``-out``/``--output-file`` … is a file
    it writes (replaced when it exists); an attached ``-oFILE`` is not told from a flag, so it is not read."""
    out = Changes()
    for i, a in enumerate(args):
        name, eq, value = a.partition("=")
        if a.startswith("--") and eq and name in _GENERIC_OUTPUTS:
            out.overwrites.append(value)
        elif a in _GENERIC_OUTPUTS and i + 1 < len(args) and not args[i + 1].startswith("-"):
            out.overwrites.append(args[i + 1])
    return out


def _split(args: list[str]) -> Changes:
    """``split [INPUT [PREFIX]]``: the chunks PREFIXaa, PREFIXab …; the first one is checked."""
    spec = Spec("lbCnat", _set("--lines", "--bytes", "--line-bytes", "--number", "--suffix-length",
                               "--separator", "--additional-suffix", "--filter", "--numeric-suffixes",
                               "--hex-suffixes"))
    opts, operands = parse(args, spec)
    length = next((int(v) for o, v in opts if o in ("-a", "--suffix-length") and v and v.isdigit()), 2)
    digits = any(o in ("-d", "-x", "--numeric-suffixes", "--hex-suffixes") for o, _v in opts)
    extra = next((v or "" for o, v in opts if o == "--additional-suffix"), "")
    prefix = operands[1] if len(operands) > 1 else "x"
    if any(o == "--filter" for o, _v in opts):
        return Changes()
    return Changes(overwrites=[prefix + ("0" if digits else "a") * max(length, 1) + extra])


def _patch(args: list[str]) -> Changes:
    spec = Spec("ioprdBYzFDVgb", _set("--input", "--output", "--strip", "--directory", "--reject-file",
                                      "--prefix", "--suffix", "--fuzz", "--ifdef", "--version-control",
                                      "--basename-prefix", "--quoting-style", "--get"))
    opts, operands = parse(args, spec)
    given = {o for o, _v in opts}
    if given & {"--dry-run", "-C", "--check"}:
        return Changes()
    output = [v for o, v in opts if o in ("-o", "--output") and v and v != "-"]
    if output or any(o in ("-o", "--output") for o, _v in opts):
        return Changes(overwrites=output)
    return Changes(edits=operands[:1])       # the files named inside the patch: ``opaque``


_FFMPEG_FLAGS = _set("-y", "-n", "-hide_banner", "-nostdin", "-stats", "-nostats", "-an", "-vn", "-sn", "-dn",
                     "-shortest", "-re", "-copyts", "-benchmark", "-report", "-xerror", "-ignore_unknown",
                     "-noautorotate", "-autorotate", "-accurate_seek", "-noaccurate_seek", "-start_at_zero",
                     "-stdin", "-debug_ts", "-help", "-h", "-version", "-formats", "-codecs", "-encoders",
                     "-decoders", "-filters")


def _ffmpeg(args: list[str]) -> Changes:
    """Every word that is neither an option, an option's value nor an input (``-i X``) is an output;
    ``-y`` overwrites it silently, and without ``-n`` a user's ``y`` at its prompt does too."""
    outputs: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and a != "-":
            i += 1 if a in _FFMPEG_FLAGS else 2
            continue
        if a != "-" and "://" not in a and not a.startswith(("pipe:", "/dev/")):
            outputs.append(a)
        i += 1
    return Changes() if "-n" in args else Changes(overwrites=outputs)


def _imagemagick(name: str, args: list[str]) -> Changes:
    if name == "magick" and args[:1] in (["mogrify"], ["convert"]):
        name, args = args[0], args[1:]
    words = [a for a in args if not a.startswith(("-", "+"))]
    if name != "mogrify":              # convert/magick IN… OUT: the last word is the file it writes
        return Changes(overwrites=words[-1:] if len(words) >= 2 and not args[-1].startswith(("-", "+")) else [])
    folder = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "-path"), None)
    fmt = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "-format"), None)
    if folder is None and fmt is None:
        return Changes(edits=words)    # rewrites each image in place (values such as 50% name no file)
    stem = [w.rsplit(".", 1)[0] + f".{fmt}" if fmt else w for w in words]
    return Changes(overwrites=[_joined(folder, s.rsplit("/", 1)[-1]) if folder else s for s in stem])


def _awk_inplace(args: list[str]) -> Changes:
    """gawk's ``-i inplace`` rewrites each file operand (the first word is the program)."""
    inplace = any(a in ("inplace", "inplace.awk") and i > 0 and args[i - 1] in ("-i", "--include")
                  for i, a in enumerate(args)) or any(a in ("-iinplace", "--include=inplace") for a in args)
    if not inplace:
        return Changes()
    _opts, operands = parse(args, Spec("ivfFe", _set("--include", "--assign", "--file", "--field-separator")))
    has_file = any(a in ("-f", "--file") or a.startswith("--file=") for a in args)
    return Changes(edits=[w for w in (operands if has_file else operands[1:]) if "=" not in w])


def program_changes(name: str, args: list[str]) -> Changes | None:
    """What ``name ARGS`` does to existing paths through its own options; None: not modelled here and no
    output option given."""
    if name in SPECS:
        return _from_spec(name, args, SPECS[name])
    if name == "split":
        return _split(args)
    if name == "patch":
        return _patch(args)
    if name == "ffmpeg":
        return _ffmpeg(args)
    if name in ("convert", "magick", "mogrify"):
        return _imagemagick(name, args)
    if name in ("gawk", "awk"):
        return _awk_inplace(args)
    if name in _OTHER_O:
        return None
    generic = _generic(args)
    return generic if generic.overwrites else None
