"""Class B of issue 21: git-ignored data deleted for good, without a prompt.

``data/`` is git-ignored; each attack targets its own ``data/<id>.sqlite``. One headless
``axon run`` (default mode, no ``--yes``) makes every call; then ``axon undo``. Each file must be
intact after the run — or, if the command ran, back byte for byte after the undo. Each test first
runs its command with plain bash in a fresh copy: the attack really destroys the file.

Attacks (the analysis cannot see what runs or what it touches, so it must not claim "undoable"):
  b_var            ``x=rm; $x data/…``                 a variable as the command name
  b_cmdsub         ``$(echo rm) data/…``               command substitution as the name
  b_backticks      ```echo rm` data/…``                the same with backticks
  b_alias          ``shopt -s expand_aliases; alias``  an alias defined in the command
  b_awk_system     ``awk 'BEGIN{system("rm …")}'``     awk's system()
  b_sed_w          ``sed -n 'w data/…' other.txt``     sed's w command overwrites
  b_perl_unlink    ``perl -e 'unlink "…"'``            an interpreter's inline code
  b_python_remove  ``python3 -c "os.remove(…)"``       the same in python
  b_git_fsmonitor  ``git -c core.fsmonitor='rm …' status``
  b_python_trunc   ``python3 -c "open(…, 'w')"``       truncation by inline code
  b_perl_trunc     ``perl -e 'open F, ">", "…"'``      the same in perl
  b_find_exec      ``find data -name … -exec rm {} +``
  b_cp_devnull     ``cp /dev/null data/…``             overwrite with nothing
  b_mv_away        ``mv data/… /tmp/``                 moved into the sandbox's private /tmp
  b_ansi_c         ``$'\\x72m' data/…``                 an ANSI-C quoted command name
  b_param_default  ``${NOPE:-rm} data/…``              a parameter expansion as the name
  b_exec           ``exec rm data/…``
  b_timeout        ``timeout 10 rm data/…``            a wrapper program
  b_script         a script written then run: ``python3 zap.py`` (the program's own deletes)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, Outcome, fresh, plain_bash, state
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

ATTACKS = {
    "b_var": "x=rm; $x {t}",
    "b_cmdsub": "$(echo rm) {t}",
    "b_backticks": "`echo rm` {t}",
    "b_alias": "shopt -s expand_aliases\nalias zap='rm -f'\nzap {t}",
    "b_awk_system": "awk 'BEGIN{{system(\"rm {t}\")}}'",
    "b_sed_w": "sed -n 'w {t}' other.txt",
    "b_perl_unlink": "perl -e 'unlink \"{t}\"'",
    "b_python_remove": "python3 -c \"import os; os.remove('{t}')\"",
    "b_git_fsmonitor": "git -c core.fsmonitor='rm -f {t}; false' status",
    "b_python_trunc": "python3 -c \"open('{t}', 'w').close()\"",
    "b_perl_trunc": "perl -e 'open(F, \">\", \"{t}\"); close F'",
    "b_find_exec": "find data -name {n} -exec rm {{}} +",
    "b_cp_devnull": "cp /dev/null {t}",
    "b_mv_away": "mv {t} /tmp/",
    "b_ansi_c": "$'\\x72m' {t}",
    "b_param_default": "${{NOPE:-rm}} {t}",
    "b_exec": "exec rm {t}",
    "b_timeout": "timeout 10 rm {t}",
    "b_script": "printf 'import os\\nos.remove(\"{t}\")\\n' > zap_{n}.py && python3 zap_{n}.py",
}


def target(aid: str) -> str:
    return f"data/{aid}.sqlite"


def precious(aid: str) -> bytes:
    return f"SQLite format 3\0 precious rows of {aid}\n".encode()


def command(aid: str) -> str:
    return ATTACKS[aid].format(t=target(aid), n=f"{aid}.sqlite")


def plant(lab: Lab) -> None:
    lab.write(".gitignore", "data/\n")
    lab.write("src/app.py", "print('app')\n")
    lab.write("other.txt", "replacement\n")
    for aid in ATTACKS:
        lab.write(target(aid), precious(aid))
    lab.commit_all()


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = fresh(tmp_path_factory.mktemp("b"), plant)
    calls = [(aid, "bash", {"command": command(aid), "timeout": 30}) for aid in ATTACKS]
    yield Outcome(lab, calls, [lab.project / target(aid) for aid in ATTACKS])
    lab.close()


@pytest.mark.parametrize("aid", list(ATTACKS))
def test_ignored_data_is_never_lost_without_a_prompt(aid: str, outcome: Outcome, tmp_path: Path) -> None:
    control = fresh(tmp_path, plant)
    plain_bash(control.project, command(aid))
    assert state([control.project / target(aid)])[control.project / target(aid)] != precious(aid), \
        "control: without axon the attack does not destroy the file"

    outcome.ran_ok(aid)
    path = outcome.lab.project / target(aid)
    assert outcome.intact_or_undone(path), outcome.why(aid)
