"""What one git command does, as the shell analysis sees it: whether it only reads, whether it is
destructive (discards work or deletes files), and whether it may run programs the analysis cannot
see (a repository or config the command names, ``-c core.fsmonitor=…``, a pager or helper command).
Pure.
"""

from __future__ import annotations

__all__ = ["git_read_only", "git_destructive", "git_opaque", "git_file_changes"]


def _has_opt(args: list[str], opts: tuple[str, ...]) -> bool:
    """An option of ``opts`` given: ``--long``/``--long=…``, ``-x``, or ``x`` inside a short cluster."""
    for a in args:
        if a == "--":
            return False
        for o in opts:
            if a == o or (o.startswith("--") and a.startswith(o + "=")):
                return True
            if len(o) == 2 and a[:1] == "-" and a[1:2] != "-" and o[1] in a[1:]:
                return True
    return False

_GIT_SAFE_CONFIG = ("color.", "advice.", "i18n.", "column.", "user.name", "user.email", "core.quotepath",
                    "core.abbrev", "init.defaultbranch", "diff.noprefix", "diff.renames", "diff.algorithm",
                    "log.decorate", "log.date", "status.short", "status.branch", "pull.rebase", "format.pretty",
                    "blame.date", "grep.linenumber", "grep.patterntype")
_GIT_RUNS = {  # subcommand -> options whose value (or own behaviour) runs a command
    "grep": ("-O", "--open-files-in-pager"), "ls-remote": ("--upload-pack", "-u"),
    "fetch": ("--upload-pack",), "pull": ("--upload-pack",), "clone": ("--upload-pack", "-u", "--template"),
    "push": ("--receive-pack", "--exec"), "archive": ("--exec",), "difftool": ("-x", "--extcmd", "-t", "--tool"),
    "mergetool": ("-t", "--tool"), "rebase": ("-x", "--exec"), "send-email": ("--sendmail-cmd", "--smtp-server"),
}
_GIT_RO = {"status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog",
           "grep", "cat-file", "ls-tree", "whatchanged", "rev-list", "merge-base", "show-ref", "annotate",
           "count-objects", "ls-remote", "name-rev", "var", "check-ignore", "diff-tree", "diff-files",
           "diff-index", "for-each-ref", "help", "version"}


def _past_global_options(args: list[str]) -> list[str]:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env") else 1
    return args[i:]


def git_read_only(args: list[str]) -> bool:
    """Whether ``git ARGS`` only reads (no pager, no config or repository named by the command)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        if args[i] not in ("--no-pager", "-P", "--no-replace-objects", "--literal-pathspecs", "--glob-pathspecs",
                           "--noglob-pathspecs", "--icase-pathspecs", "--no-optional-locks", "--bare"):
            return False               # -c, -C, --git-dir, --work-tree, -p (a pager), --exec-path, unknown
        i += 1
    if i >= len(args):
        return True
    sub, rest = args[i], args[i + 1:]
    if _has_opt(rest, ("--output", "--ext-diff", "--textconv", "-O", "--open-files-in-pager", "--upload-pack")):
        return False
    if sub == "help":
        return not _has_opt(rest, ("-w", "--web", "-i", "--info", "-m", "--man"))
    if sub in _GIT_RO:
        return True
    listing = all(a.startswith("-") for a in rest)
    if sub == "branch":
        bad = {"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "-u", "--set-upstream-to",
               "--unset-upstream", "--edit-description", "-f", "--force"}
        return listing and not any(a.split("=", 1)[0] in bad for a in rest)
    if sub == "tag":
        return listing or rest[:1] in (["-l"], ["--list"])
    if sub == "remote":
        return not rest or rest in (["-v"], ["--verbose"]) or rest[:1] in (["show"], ["get-url"])
    if sub == "stash":
        return rest[:1] in (["list"], ["show"])
    if sub == "config":
        return bool(rest) and rest[0] in ("--get", "--get-all", "--list", "-l", "--get-regexp")
    if sub == "reflog":
        return not rest or rest[0] == "show"
    if sub == "worktree":
        return rest[:1] == ["list"]
    return False


def git_destructive(args: list[str]) -> str | None:
    """Why ``git ARGS`` discards work, deletes files or changes a remote; None when it does not."""
    args = _past_global_options(args)
    words = [a for a in args if not a.startswith("-")]
    sub = words[0] if words else ""
    if sub == "push":
        return "git push changes the remote"
    if sub == "reset" and "--hard" in args:
        return "git reset --hard discards changes"
    if sub == "clean" and not _has_opt(args, ("-n", "--dry-run")):
        return "git clean deletes untracked files"
    if sub == "checkout" and ("." in words[1:] or "--" in args or len(words) > 2
                              or _has_opt(args, ("-f", "--force", "-p", "--patch"))):
        return "git checkout discards changes"
    if sub == "restore" and (_has_opt(args, ("-W", "--worktree")) or not _has_opt(args, ("-S", "--staged"))):
        return "git restore discards changes"
    if sub == "switch" and _has_opt(args, ("-f", "--force", "--discard-changes")):
        return "git switch discards changes"
    if sub == "rm" and _has_opt(args, ("-f", "--force")) and "--cached" not in args:
        return "git rm -f deletes files"
    if sub == "branch" and any(a in ("-D", "--delete", "-d") for a in args):
        return "git branch -D deletes a branch"
    if sub == "stash" and words[1:2] in (["drop"], ["clear"]):
        return "git stash drop discards changes"
    if sub in ("rebase", "filter-branch", "filter-repo", "update-ref", "gc", "prune"):
        return f"git {sub} rewrites history"
    return None


def git_opaque(args: list[str]) -> str | None:
    """Why ``git ARGS`` may run programs the analysis cannot see (its own config, a pager, a helper)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        a = args[i]
        key, value = a.split("=", 1) if "=" in a else (a, None)
        if key == "--exec-path" and value is not None:
            return "git --exec-path names where git finds the programs it runs"
        if key in ("-C", "--git-dir", "--work-tree"):
            return f"git {key} names a repository whose own config can run programs"
        if key == "--config-env" or a.startswith("--config-env"):
            return "git --config-env sets config that can run programs"
        if a == "-c" or (a.startswith("-c") and len(a) > 2):
            setting = (args[i + 1] if i + 1 < len(args) else "") if a == "-c" else a[2:]
            if not setting.lower().startswith(_GIT_SAFE_CONFIG):
                return f"git -c {setting.split('=', 1)[0]} can run programs"
        i += 2 if a in ("-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env") else 1
    sub, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    for opt in _GIT_RUNS.get(sub, ()):
        if any(r == opt or r.startswith(opt + "=") or (len(opt) == 2 and r.startswith(opt)) for r in rest):
            return f"git {sub} {opt} runs a command"
    if sub == "grep" and any(r[:1] == "-" and r[1:2] != "-" and "O" in r[1:] for r in rest):
        return "git grep -O runs a command"
    if sub == "bisect" and rest[:1] == ["run"] or sub == "submodule" and "foreach" in rest:
        return f"git {sub} runs a command"
    if sub == "filter-branch" or (sub == "config" and _config_sets_program(rest)):
        return f"git {sub} can make git run programs"
    if sub == "apply" and not any(r in ("--check", "--stat", "--numstat", "--summary") for r in rest):
        return "git apply changes the files the patch names"
    return None


def _config_sets_program(rest: list[str]) -> bool:
    words = [r for r in rest if not r.startswith("-")]
    return len(words) >= 2 and not words[0].lower().startswith(_GIT_SAFE_CONFIG) and words[0] not in ("get", "list")




def git_file_changes(args: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The paths ``git rm`` deletes from the working tree, the ones ``git mv`` moves away, and the ones
    ``git mv -f`` replaces; ``--cached`` and ``-n`` change none."""
    rest = _past_global_options(args)
    sub, rest = (rest[0], rest[1:]) if rest else ("", [])
    if sub not in ("mv", "rm") or _has_opt(rest, ("-n", "--dry-run", "--cached")):
        return [], [], []
    cut = rest.index("--") if "--" in rest else len(rest)
    words = [a for a in rest[:cut] if not a.startswith("-")] + rest[cut + 1:]
    if sub == "rm":
        return words, [], []
    if len(words) < 2:
        return [], [], []
    forced = _has_opt(rest, ("-f", "--force"))
    dest = words[-1]
    return [], words[:-1], ([dest] + [f"{dest.rstrip('/')}/{w.rstrip('/').rsplit('/', 1)[-1]}" for w in words[:-1]]
                        if forced else [])
