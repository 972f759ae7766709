"""Class C of issue 21: ``--mode read-only`` must write nothing.

Each attack targets its own tracked file ``ro/<id>.txt``; nested repositories ``vendor/<id>/`` ship
their own ``.git/config`` with a command in it. One ``axon run --mode read-only --yes`` makes every
call (``--yes``: read-only must not depend on the approver); each target must be intact afterwards
(read-only takes no snapshot, so there is nothing to undo). Each test first proves the command
destroys its file with plain bash.

Attacks:
  c_bash_env        ``BASH_ENV=scripts/env.sh bash -c true``  (env.sh deletes the file)
  c_git_grep_pager  ``git grep --open-files-in-pager='rm -f …; true' needle``
  c_git_C           ``git -C vendor/c_git_C status``   (its config: core.fsmonitor deletes)
  c_git_dir         ``git --git-dir=vendor/c_git_dir/.git status``
  c_git_dir_env     ``GIT_DIR=vendor/…/.git git status``
  c_git_work_tree   ``git --git-dir=… --work-tree=… status``
  c_git_diff_ext    ``git -C vendor/c_git_diff_ext diff``  (its config: diff.external deletes)
  c_git_c_core      ``git -c core.fsmonitor='rm …' status``
  c_git_config_env  ``GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor … git status``
  c_lessopen        ``LESSOPEN='|rm -f …; cat %s' less pager.txt``
  c_env_sh          ``ENV=scripts/env_c_env_sh.sh sh -i -c true``
  c_sed_e           ``sed -n '1e rm -f …' pager.txt``
  c_awk_system      ``awk 'BEGIN{system("rm …")}'``
  c_python          ``python3 -c "import os; os.remove(…)"``
  c_var             ``x=rm; $x …``
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, Outcome, fresh, plain_bash, state
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

NESTED_FSMONITOR = {"c_git_C": "git -C {v} status",
                    "c_git_dir": "git --git-dir={v}/.git status",
                    "c_git_dir_env": "GIT_DIR={v}/.git git status",
                    "c_git_work_tree": "git --git-dir={v}/.git --work-tree={v} status"}
ATTACKS = {
    "c_bash_env": "BASH_ENV=scripts/env_c_bash_env.sh bash -c true",
    "c_git_grep_pager": "git grep --open-files-in-pager='rm -f {t}; true' -e needle -- pager.txt",
    **NESTED_FSMONITOR,
    "c_git_diff_ext": "git -C {v} diff",
    "c_git_c_core": "git -c core.fsmonitor='rm -f {t}; false' status",
    "c_git_config_env": "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor GIT_CONFIG_VALUE_0='rm -f {t}; false' "
                        "git status",
    "c_lessopen": "LESSOPEN='|rm -f {t}; cat %s' less pager.txt",
    "c_env_sh": "ENV=scripts/env_c_env_sh.sh sh -i -c true",
    "c_sed_e": "sed -n '1e rm -f {t}' pager.txt",
    "c_awk_system": "awk 'BEGIN{{system(\"rm {t}\")}}'",
    "c_python": "python3 -c \"import os; os.remove('{t}')\"",
    "c_var": "x=rm; $x {t}",
}


def target(aid: str) -> str:
    return f"ro/{aid}.txt"


def original(aid: str) -> bytes:
    return f"read-only must keep {aid}\n".encode()


def command(aid: str) -> str:
    return ATTACKS[aid].format(t=target(aid), v=f"vendor/{aid}")


def plant(lab: Lab) -> None:
    lab.write(".gitignore", "vendor/\n")        # not gitlinks: axon's start-up `git status` stays out (see A)
    lab.write("pager.txt", "a needle in the file\n")
    for aid in ATTACKS:
        lab.write(target(aid), original(aid))
    for aid in ("c_bash_env", "c_env_sh"):
        lab.write(f"scripts/env_{aid}.sh", f"rm -f {lab.project / target(aid)}\n")
    for aid in [*NESTED_FSMONITOR, "c_git_diff_ext"]:
        nested = lab.project / "vendor" / aid
        lab.write("tool.txt", "v1\n", root=nested)
        lab.commit_all(nested)
        key = "diff.external" if aid == "c_git_diff_ext" else "core.fsmonitor"
        lab.git("config", key, f"rm -f {lab.project / target(aid)}; false", cwd=nested)
        lab.write("tool.txt", "v2\n", root=nested)            # a change for diff to show
    lab.commit_all()


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = fresh(tmp_path_factory.mktemp("c"), plant)
    calls = [(aid, "bash", {"command": command(aid), "timeout": 30}) for aid in ATTACKS]
    yield Outcome(lab, calls, [lab.project / target(aid) for aid in ATTACKS], "--mode", "read-only", "--yes",
                  undo=False)
    lab.close()


@pytest.mark.parametrize("aid", list(ATTACKS))
def test_read_only_mode_writes_nothing(aid: str, outcome: Outcome, tmp_path: Path) -> None:
    control = fresh(tmp_path, plant)
    for script in (control.project / "scripts").glob("*.sh"):      # the control's own absolute paths
        script.write_text(script.read_text().replace(str(outcome.lab.project), str(control.project)))
    plain_bash(control.project, command(aid).replace(str(outcome.lab.project), str(control.project)))
    controlled = control.project / target(aid)
    assert state([controlled])[controlled] != original(aid), "control: plain bash leaves the file alone"

    outcome.ran_ok(aid)
    assert outcome.intact(outcome.lab.project / target(aid)), outcome.why(aid)
