"""What one git command does beyond the working tree: whether it writes the repository (``.git``:
objects, refs, the index, HEAD, its config, hooks) or a git config outside it, and whether it needs
the network.

Exact where git's own documentation is: the read-only forms (``git branch``, ``git tag -l``, ``git
stash list``, ``git config --get``, ``git remote -v``, ``git worktree list``, ``git apply`` without
``--index``/``--cached``) write no ``.git``; ``git restore FILE`` and ``git checkout -- FILE`` do
(they take ``.git/index.lock`` to refresh the index: inside the sandbox they fail). A subcommand not known here (an alias such as ``git co``) counts as writing it. Pure.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GitEffects", "git_effects"]


@dataclass(frozen=True)
class GitEffects:
    sub: str                          # the subcommand ("" for none)
    network: bool = False             # talks to a remote
    writes_repo: bool = False         # writes .git (or the repository -C / --git-dir names)
    writes_config: str | None = None  # a git config file outside the repository it writes (--global: ~/.gitconfig)


_GLOBAL_WITH_VALUE = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env",
                      "--exec-path", "--list-cmds"}
# Never write .git (what they write, if anything, is the working tree, a named file or stdout).
_NO_REPO_WRITE = {
    "status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe", "shortlog", "grep", "cat-file",
    "ls-tree", "whatchanged", "rev-list", "merge-base", "show-ref", "annotate", "count-objects", "ls-remote",
    "name-rev", "var", "check-ignore", "check-attr", "check-mailmap", "check-ref-format", "diff-tree", "diff-files",
    "diff-index", "for-each-ref", "help", "version", "cherry", "show-branch", "range-diff", "verify-commit",
    "verify-tag", "verify-pack", "format-patch", "archive", "clean", "merge-file", "get-tar-commit-id",
    "stripspace", "column", "interpret-trailers", "fast-export", "pack-objects", "request-pull", "send-email",
    "clone", "difftool", "credential", "bugreport", "diagnose", "hook", "fmt-merge-msg", "mailinfo", "mailsplit",
    "patch-id", "show-index", "unpack-file",
}
_NETWORK = {"push", "pull", "fetch", "clone", "ls-remote", "send-email", "request-pull", "svn", "p4"}
# subcommand -> (its sub-subcommands that only read, whether the bare subcommand only reads); any other writes
_READING_VERBS: dict[str, tuple[set[str], bool]] = {
    "stash": ({"list", "show"}, False), "notes": ({"list", "show", "get-ref"}, True),
    "worktree": ({"list"}, False), "submodule": ({"status", "summary"}, True),
    "reflog": ({"show", "exists"}, True), "sparse-checkout": ({"list"}, False),
    "bisect": ({"log", "visualize", "view", "terms", "help"}, False), "rerere": ({"status", "diff", "remaining"}, False),
    "lfs": ({"ls-files", "status", "env", "version", "locks", "logs"}, False),
    "commit-graph": ({"verify"}, False), "multi-pack-index": ({"verify"}, False),
    "remote": ({"show", "get-url"}, True), "replace": (set(), True), "bundle": ({"create", "verify", "list-heads"}, False),
}
_BRANCH_LISTING = {"-l", "--list", "-a", "--all", "-r", "--remotes", "--contains", "--no-contains", "--merged",
                   "--no-merged", "--points-at", "--show-current", "-v", "-vv", "--verbose"}
_BRANCH_WRITES = {"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy", "-u", "--set-upstream-to",
                  "--unset-upstream", "--edit-description", "-f", "--force", "-t", "--track", "--no-track"}
_TAG_LISTING = {"-l", "--list", "-n", "--contains", "--no-contains", "--points-at", "--merged", "--no-merged",
                "-v", "--verify"}
_TAG_WRITES = {"-d", "--delete", "-a", "--annotate", "-s", "--sign", "-u", "--local-user", "-m", "--message",
               "-F", "--file", "-f", "--force"}
_CONFIG_READS = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l", "--get-color",
                 "--get-colorbool"}
_CONFIG_WRITES = {"--unset", "--unset-all", "--add", "--replace-all", "--rename-section", "--remove-section",
                  "-e", "--edit"}
_CONFIG_VALUE_OPTS = {"-f", "--file", "--blob", "--type", "--default", "--comment", "--value"}


def _split(args: list[str]) -> tuple[str, list[str]]:
    """The subcommand and its arguments, past git's global options."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        opt = args[i]
        i += 2 if opt in _GLOBAL_WITH_VALUE and "=" not in opt else 1
    return (args[i], args[i + 1:]) if i < len(args) else ("", [])


def _has(rest: list[str], opts: set[str]) -> bool:
    return any(a.split("=", 1)[0] in opts for a in rest)


def _words(rest: list[str]) -> list[str]:
    return [a for a in rest if not a.startswith("-")]


def _verb_writes(sub: str, rest: list[str]) -> bool:
    reading, bare_reads = _READING_VERBS[sub]
    words = _words(rest)
    if sub == "remote":
        return bool(words) and words[0] not in reading
    if sub == "replace":
        return bool(words) and not _has(rest, {"-l", "--list"})
    if not words:
        return not bare_reads
    return words[0] not in reading


def _config(rest: list[str]) -> tuple[bool, str | None]:
    """(writes, where when not the repository) of ``git config``."""
    words: list[str] = []
    i = 0
    while i < len(rest):
        a = rest[i]
        if a in _CONFIG_VALUE_OPTS:
            i += 2
            continue
        if not a.startswith("-"):
            words.append(a)
        i += 1
    verb = words[0] if words else ""
    if verb in ("get", "list"):
        writes = False
    elif verb in ("set", "unset", "rename-section", "remove-section", "edit") or _has(rest, _CONFIG_WRITES):
        writes = True
    elif _has(rest, _CONFIG_READS):
        writes = False
    else:
        writes = len(words) >= 2
    if not writes:
        return False, None
    if "--global" in rest:
        return True, "~/.gitconfig"
    if "--system" in rest:
        return True, "/etc/gitconfig"
    for j, a in enumerate(rest):
        if a in ("-f", "--file") and j + 1 < len(rest):
            return True, rest[j + 1]
        if a.startswith("--file="):
            return True, a.split("=", 1)[1]
    return True, None


def _writes_repo(sub: str, rest: list[str]) -> bool:
    words = _words(rest)
    if sub in _NO_REPO_WRITE:
        return False
    if sub in _READING_VERBS:
        return _verb_writes(sub, rest)
    if sub == "branch":
        return _has(rest, _BRANCH_WRITES) or (bool(words) and not _has(rest, _BRANCH_LISTING))
    if sub == "tag":
        return _has(rest, _TAG_WRITES) or (bool(words) and not _has(rest, _TAG_LISTING))
    if sub in ("checkout", "restore"):    # even `-- FILE` takes .git/index.lock to refresh the index
        return True
    if sub == "apply":
        return _has(rest, {"--index", "--cached", "-3", "--3way", "--intent-to-add", "-N"})
    if sub == "symbolic-ref":
        return len(words) >= 2 or _has(rest, {"-d", "--delete"})
    if sub == "hash-object":
        return "-w" in rest
    if sub == "fsck":
        return "--lost-found" in rest
    return sub != ""


def _network(sub: str, rest: list[str]) -> bool:
    words = _words(rest)
    if sub in _NETWORK:
        return True
    if sub == "remote":
        return (words[:1] in (["update"], ["prune"]) or (words[:1] == ["show"] and "-n" not in rest)
                or (words[:1] == ["add"] and _has(rest, {"-f", "--fetch"})))
    if sub == "submodule":
        return words[:1] in (["add"], ["update"])
    if sub == "lfs":
        return words[:1] in (["pull"], ["push"], ["fetch"], ["clone"])
    if sub == "archive":
        return _has(rest, {"--remote"})
    return False


def git_effects(args: list[str]) -> GitEffects:
    """The effects of ``git ARGS`` (``args`` without the leading ``git``)."""
    sub, rest = _split(args)
    if sub == "config":
        writes, where = _config(rest)
        return GitEffects(sub, writes_repo=writes and where is None, writes_config=where)
    return GitEffects(sub, network=_network(sub, rest), writes_repo=_writes_repo(sub, rest))
