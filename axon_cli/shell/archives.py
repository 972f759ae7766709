"""What archivers do to existing paths: the archive ``tar -c``/``7z a``/``zip`` writes or updates, and
the inputs ``tar --remove-files``/``zip -m``/``7z -sdel`` remove. Extraction (``tar -x``, ``unzip``,
``7z x``) writes files named inside the archive: ``opaque`` says so, and such a command always asks. Pure.
"""

from __future__ import annotations

from axon_cli.shell.outputs import Changes, Spec, parse

__all__ = ["archive_changes"]

_TAR = Spec("fCbKNTXgLHIVF", frozenset({
    "--file", "--directory", "--blocking-factor", "--starting-file", "--newer", "--after-date", "--files-from",
    "--exclude-from", "--listed-incremental", "--tape-length", "--format", "--use-compress-program", "--label",
    "--exclude", "--transform", "--xform", "--owner", "--group", "--mode", "--mtime", "--to-command",
    "--info-script", "--new-volume-script", "--rsh-command", "--checkpoint-action", "--suffix", "--backup"}))
_TAR_MODES = {"-c": "create", "--create": "create", "-r": "append", "--append": "append", "-u": "append",
              "--update": "append", "-A": "append", "--catenate": "append", "--concatenate": "append",
              "--delete": "append", "-x": "extract", "--extract": "extract", "--get": "extract",
              "-t": "list", "--list": "list", "-d": "list", "--diff": "list", "--compare": "list"}


def _tar(args: list[str]) -> Changes:
    if args and not args[0].startswith("-"):          # old style: `tar cvf x.tar …` is `tar -c -v -f x.tar …`
        args = ["-" + args[0], *args[1:]]
    opts, operands = parse(args, _TAR)
    given = {o for o, _v in opts}
    mode = next((_TAR_MODES[o] for o, _v in opts if o in _TAR_MODES), "")
    archive = [v for o, v in opts if o in ("-f", "--file") and v and v != "-"]
    if mode == "create":
        out = Changes(overwrites=archive)
    elif mode == "append":
        out = Changes(edits=archive)
    else:
        return Changes()
    if "--remove-files" in given:
        out.deletes = operands
    return out


_ZIP = Spec("bntPZsO", frozenset({"--temp-path", "--suffixes", "--password", "--compression-method",
                                  "--split-size", "--out", "--output-file"}))


def _zip(args: list[str]) -> Changes:
    opts, operands = parse([a for a in args if a not in ("-tt",)], _ZIP)
    given = {o for o, _v in opts}
    if not operands:
        return Changes()
    archive, files = operands[0], operands[1:]
    if "." not in archive.rsplit("/", 1)[-1]:
        archive += ".zip"                        # zip adds the suffix to a name without one
    output = [v for o, v in opts if o in ("-O", "--out", "--output-file") and v and v != "-"]
    to_other = any(o in ("-O", "--out", "--output-file") for o, _v in opts)   # the archive is only read
    out = Changes(overwrites=output) if to_other else Changes(edits=[archive])
    if given & {"-m", "--move"}:
        out.deletes = files
    return out


def _sevenzip(args: list[str]) -> Changes:
    words = [a for a in args if not a.startswith("-")]
    switches = [a for a in args if a.startswith("-")]
    command, archive, files = (words[0].lower() if words else ""), words[1:2], words[2:]
    if command in ("a", "u", "d", "rn"):
        return Changes(edits=archive, deletes=files if "-sdel" in switches else [])
    return Changes()


def archive_changes(name: str, args: list[str]) -> Changes | None:
    """What the archiver ``name`` does to existing paths; None for a program that is not one."""
    if name in ("tar", "gtar", "bsdtar"):
        return _tar(args)
    if name == "zip":
        return _zip(args)
    if name in ("7z", "7za", "7zr", "7zz"):
        return _sevenzip(args)
    return None
