"""Property tests: the analyser never raises, and never calls a command with an rm, mv, dd, ``>``
or tee step read-only, however the step is wrapped, nested or joined."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axon_cli.shell.analyze import analyze
from tests.budget import examples

SAFE = ["ls", "ls -la", "cat a.txt", "git status", "echo hi", "grep -n x f", "pwd", "wc -l f", "true",
        "find . -name x", "head f", "git log --oneline"]
DANGER = ["rm x", "rm -rf build", "mv a b", "dd if=a of=b", "echo x > out.txt", "tee out.txt", "ls >> log",
          "cat a | tee b", "rm", "mv -f a b", "printf x >| f"]
OPS = ["; ", " && ", " || ", " | ", " & ", " |& ", "\n", " ;\n "]
WRAPPERS = ["command ", "env ", "nice ", "nice -n 5 ", "timeout 5 ", "nohup ", "time ", "sudo ", "exec ",
            "env A=1 ", "stdbuf -oL ", "\\", "builtin "]
QUOTE_SAFE = st.sampled_from([d for d in DANGER if "'" not in d])


def _wrap_command(step: str, how: str) -> str:
    name, _, rest = step.partition(" ")
    return {
        "subst": f"echo $({step})", "backtick": f"echo `{step}`", "subshell": f"({step})",
        "group": f"{{ {step}; }}", "bash_c": f"bash -c '{step}'", "sh_c": f"sh -c \"{step}\"",
        "eval": f"eval '{step}'", "dquote_subst": f"echo \"$({step})\"", "procsub": f"cat <({step})",
        "if": f"if true; then {step}; fi", "for": f"for i in 1; do {step}; done",
        "heredoc": f"cat <<EOF\n$({step})\nEOF", "abs": f"/bin/{step}" if " " in step else f"/bin/{step}",
        "quoted_name": f"'{name}' {rest}", "param": f"echo ${{x:-$({step})}}", "plain": step,
    }[how]


HOW = st.sampled_from(["subst", "backtick", "subshell", "group", "bash_c", "sh_c", "eval", "dquote_subst",
                       "procsub", "if", "for", "heredoc", "abs", "quoted_name", "param", "plain"])


@st.composite
def dangerous_commands(draw: st.DrawFn) -> str:
    step = draw(QUOTE_SAFE)
    wrapper = draw(st.sampled_from(["", *WRAPPERS]))
    inner = _wrap_command(wrapper + step if not step.startswith(("echo", "cat", "ls", "printf")) else step,
                          draw(HOW))
    before = draw(st.lists(st.sampled_from(SAFE), max_size=3))
    after = draw(st.lists(st.sampled_from(SAFE), max_size=3))
    parts = [*before, inner, *after]
    ops = draw(st.lists(st.sampled_from(OPS), min_size=len(parts), max_size=len(parts)))
    return "".join(p + (ops[i] if i < len(parts) - 1 else "") for i, p in enumerate(parts))


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dangerous_commands())
def test_a_dangerous_step_is_never_read_only(command: str) -> None:
    a = analyze(command)
    assert not a.read_only, (command, a.simple_commands)


@settings(max_examples=examples(250), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab rm>|&;()$`'\"\\{}<\n#*=-~./")), max_size=60))
def test_never_raises_on_shell_like_noise(command: str) -> None:
    a = analyze(command)
    assert isinstance(a.read_only, bool) and isinstance(a.simple_commands, list)
    if not a.parsed:
        assert a.read_only is False


@settings(max_examples=examples(150), deadline=None)
@given(st.text(max_size=200))
def test_never_raises_on_any_text(command: str) -> None:
    a = analyze(command)
    assert isinstance(a.paths, list) and isinstance(a.destructive_reasons, list)


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.sampled_from(SAFE), min_size=1, max_size=4), st.sampled_from(OPS))
def test_safe_compounds_stay_read_only(parts: list[str], op: str) -> None:
    command = op.join(parts)
    assert analyze(command).read_only, command


# issue 21: steps the analysis cannot see through stay opaque (never read-only) however they are wrapped
OPAQUE_STEPS = ["$x data/db", "$(echo rm) data/db", "git -C vendor/tool status", "git --git-dir=v/.git status",
                "git -c core.fsmonitor=x status", "BASH_ENV=e.sh bash -c true", "echo rm x | sh", "PAGER=x git log",
                "git grep -Ox y", "python3 -c \"import os\"", "perl -e unlink", "sort --compress-program=sh f",
                "xargs $c", "find . -exec {} +", "rm $(cat l)", "sed -n \"w out\" f", "env LD_PRELOAD=x ls"]


@settings(max_examples=examples(250), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(OPAQUE_STEPS), st.sampled_from(["subst", "subshell", "group", "sh_c", "if", "for", "plain",
                                                        "procsub", "heredoc"]),
       st.lists(st.sampled_from(SAFE), max_size=3), st.sampled_from(OPS))
def test_an_opaque_step_stays_opaque(step: str, how: str, safe: list[str], op: str) -> None:
    command = op.join([*safe, _wrap_command(step, how)])
    a = analyze(command)
    assert a.parsed and a.opaque_reasons and not a.read_only, (command, a.units)


@settings(max_examples=examples(100), deadline=None)
@given(st.text(alphabet=st.sampled_from(list("ab{},.$x-\\ ")), max_size=40))
def test_brace_heavy_words_are_quick_and_never_raise(command: str) -> None:
    a = analyze("rm " + command)
    assert isinstance(a.opaque_reasons, list)
