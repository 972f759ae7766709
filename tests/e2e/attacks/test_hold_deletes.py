"""What held in issue 21 and must keep holding: deleting files through the shell's many doors.

Each technique gets its own folder ``h_<id>/`` holding ``keep.txt`` (tracked), ``fresh.txt``
(untracked, not ignored) and ``data/keep.db`` (git-ignored). Per technique two calls: one against a
file a snapshot holds (``keep.txt``; ``fresh.txt`` for ``git clean``), one against the ignored file.
One headless ``axon run`` (default mode, no ``--yes``) makes all of them, then ``axon undo``.
The invariant holds whether ``default`` asks before every delete (issue 20) or runs sandboxed,
undoable calls: a file is intact, or ``axon undo`` brings it back byte for byte — git-ignored ones
too, since snapshots hold them. Each test first proves its command deletes the file with plain bash.

Techniques: rm, env rm, eval, bash -c, find -delete, xargs rm, a glob, ``>|`` clobber,
``cd … && rm``, a shell function, process substitution (``source <(…)``), ``git clean -fdx``, a
pager (``git grep --open-files-in-pager``), a pager (``LESSOPEN`` for ``less``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.attacks.lab import Lab, Outcome, fresh, plain_bash, state
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

TECHNIQUES = {
    "rm": "rm {t}",
    "env_rm": "env rm {t}",
    "eval": "eval \"rm {t}\"",
    "bash_c": "bash -c 'rm {t}'",
    "find_delete": "find {d} -maxdepth 1 -name {n} -delete",
    "xargs_rm": "echo {t} | xargs rm",
    "glob": "rm -f {d}/*",
    "clobber": "echo gone >| {t}",
    "cd_rm": "cd {d} && rm {n}",
    "function": "zap() {{ rm \"$1\"; }}; zap {t}",
    "procsub": "source <(echo 'rm {t}')",
    "pager_git_grep": "git grep --open-files-in-pager='rm -f {t}; true' -e needle -- pager.txt",
    "pager_less": "LESSOPEN='|rm -f {t}; cat %s' less pager.txt",
    "git_clean": "git clean -fdx {d}",       # last: it would sweep anything untracked under {d}
}
KINDS = ("snapshotted", "ignored")


def target(tid: str, kind: str) -> str:
    if kind == "ignored":
        return f"h_{tid}/data/keep.db"
    return f"h_{tid}/fresh.txt" if tid == "git_clean" else f"h_{tid}/keep.txt"


def original(tid: str, kind: str) -> bytes:
    return f"{kind} file of {tid}: precious\n".encode()


def command(tid: str, kind: str) -> str:
    path = Path(target(tid, kind))
    return TECHNIQUES[tid].format(t=path, d=path.parent, n=path.name)


def plant(lab: Lab) -> None:
    lab.write(".gitignore", "data/\n")
    lab.write("pager.txt", "a needle in the file\n")
    for tid in TECHNIQUES:
        for kind in KINDS:
            lab.write(target(tid, kind), original(tid, kind))
    lab.commit_all()
    for tid in TECHNIQUES:          # fresh.txt stays untracked (written after the commit)
        lab.write(f"h_{tid}/fresh.txt", original(tid, "fresh"))
    lab.git("rm", "-q", "--cached", "h_git_clean/fresh.txt")
    lab.git("commit", "-qm", "untrack")
    lab.write(target("git_clean", "snapshotted"), original("git_clean", "snapshotted"))


CASES = [(tid, kind) for tid in TECHNIQUES for kind in KINDS]


def call_id(tid: str, kind: str) -> str:
    return f"{tid}-{kind}"


@pytest.fixture(scope="module")
def outcome(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = fresh(tmp_path_factory.mktemp("hold"), plant)
    calls = [(call_id(t, k), "bash", {"command": command(t, k), "timeout": 30}) for t, k in CASES]
    yield Outcome(lab, calls, [lab.project / target(t, k) for t, k in CASES])
    lab.close()


@pytest.mark.parametrize("tid,kind", CASES, ids=[call_id(t, k) for t, k in CASES])
def test_deletion_is_denied_or_undone(tid: str, kind: str, outcome: Outcome, tmp_path: Path) -> None:
    control = fresh(tmp_path, plant)
    plain_bash(control.project, command(tid, kind))
    controlled = control.project / target(tid, kind)
    assert state([controlled])[controlled] != original(tid, kind), "control: plain bash leaves the file alone"

    outcome.ran_ok(call_id(tid, kind))
    path = outcome.lab.project / target(tid, kind)
    assert outcome.intact_or_undone(path), outcome.why(call_id(tid, kind))
