"""Shell builtins that set variables, aliases or command lookups: when using one is harmless.

``export GIT_EXTERNAL_DIFF=…``, ``read PATH``, ``alias ls=…``, ``hash -p``, ``history -w FILE`` change
what later commands run (or write a file), so they are not read-only; listing forms are.
"""

from __future__ import annotations

__all__ = ["SAFE_ENV", "builtin_read_only", "env_runs_code", "names_set"]

SAFE_ENV = {"LANG", "LANGUAGE", "TZ", "NO_COLOR", "COLUMNS", "LINES", "TERM", "FORCE_COLOR", "CLICOLOR"}


def _harmless_name(word: str) -> bool:
    """A shell variable a builtin may set without changing what later commands run: a safe locale or
    display variable, or a lowercase name (PATH, LD_PRELOAD, GIT_*, PAGER, BASH_ENV are uppercase)."""
    name = word.split("=", 1)[0].rstrip("+")
    return name in SAFE_ENV or name.startswith("LC_") or any(c.islower() for c in name)


def builtin_read_only(name: str, args: list[str]) -> bool | None:
    """For builtins that set variables, aliases or command lookups: whether this use is harmless
    (``export GIT_EXTERNAL_DIFF=…``, ``read PATH``, ``alias ls=…``, ``hash -p``, ``history -w`` are not);
    None for other commands."""
    if name in ("export", "declare", "local", "unset"):
        if any(a.startswith("-") and "n" in a for a in args):
            return False               # a nameref can later point an innocent name at PATH
        return all(_harmless_name(a) for a in args if not a.startswith(("-", "+")))
    if name == "read":
        names, i = [], 0
        while i < len(args):
            a = args[i]
            if a.startswith("-") and len(a) > 1:
                if a[-1] in "adinNptu":          # options with an argument (-a NAME is a name)
                    if a[-1] == "a":
                        names.append(args[i + 1] if i + 1 < len(args) else "")
                    i += 1
            else:
                names.append(a)
            i += 1
        return all(_harmless_name(n) for n in names)
    if name == "printf" and "-v" in args:
        i = args.index("-v")
        return _harmless_name(args[i + 1]) if i + 1 < len(args) else True
    if name == "alias":
        return not any("=" in a for a in args)
    if name == "hash":
        return not any(a.startswith("-") and "p" in a for a in args)
    if name == "history":
        return all(a.isdigit() for a in args)
    return None


# -- variables that make programs run other code --------------------------------------------------
_RUNS_CODE: set[str] = {
    "PATH", "BASH_ENV", "ENV", "PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS4", "SHELLOPTS", "BASHOPTS", "HOME",
    "XDG_CONFIG_HOME", "PAGER", "MANPAGER", "MANOPT", "EDITOR", "VISUAL", "BROWSER", "LESSOPEN", "LESSCLOSE",
    "LESS", "LESSKEY", "LESSKEYIN", "SHELL", "PERL5LIB", "PERL5OPT", "PERLLIB", "PERL5DB", "RUBYOPT", "RUBYLIB",
    "NODE_OPTIONS", "NODE_PATH", "SSH_ASKPASS", "SUDO_ASKPASS", "RIPGREP_CONFIG_PATH", "SYSTEMD_PAGER",
    "GH_PAGER", "GCONV_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "CDPATH", "TMPDIR", "IFS",
}
_RUNS_CODE |= {"PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONEXECUTABLE",
               "PYTHONPLATLIBDIR", "PYTHONBREAKPOINT", "PYTHONINSPECT"}
_RUNS_CODE_PREFIXES = ("LD_", "DYLD_", "GIT_", "BASH_FUNC_", "NPM_CONFIG_", "npm_config_")
_GIT_HARMLESS = ("GIT_AUTHOR_", "GIT_COMMITTER_", "GIT_TERMINAL_PROMPT", "GIT_OPTIONAL_LOCKS")


def env_runs_code(word: str) -> str | None:
    """The variable name when setting it (``NAME=…``) can make a program run other code or read its
    configuration elsewhere (``BASH_ENV``, ``PAGER``, ``LD_PRELOAD``, ``GIT_*``, ``PATH``, ``HOME`` …)."""
    name = word.split("=", 1)[0].rstrip("+")
    name = name.split("[", 1)[0]
    if name.startswith(_GIT_HARMLESS):
        return None
    return name if name in _RUNS_CODE or name.startswith(_RUNS_CODE_PREFIXES) else None


def names_set(name: str, args: list[str]) -> list[str]:
    """The variables a builtin sets (``export A=1 B``, ``declare -x A``, ``read A B``); [] for others."""
    if name in ("export", "declare", "typeset", "local", "readonly"):
        return [a for a in args if not a.startswith(("-", "+"))]
    if name == "read":
        return [a for a in args if not a.startswith("-")]
    if name in ("printf", "mapfile", "readarray") and "-v" in args[:-1]:
        return [args[args.index("-v") + 1]]
    return []
