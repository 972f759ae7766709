"""What held in issue 21 and must keep holding: hostile sizes and shapes never hang or crash axon.

One ``axon run --yes`` in a project holding a FIFO, a symlink to ``/dev/zero``, a sparse 1 GiB
file, a 40 MB single-line file and symlink loops; the model calls each tool on each, sends 2 MB
arguments and NaN/Infinity in its JSON. Then a run whose reply is 5 MB, and one whose model makes
300 calls at once. Each: axon exits 0 within the deadline, no traceback, every call is answered
exactly once, and no single tool result carries more than 1 MB to the model.

Attacks: r_fifo_read, r_fifo_cat, r_fifo_search, r_zero_read, r_zero_cat, r_sparse_read,
r_sparse_search, r_long_read, r_long_search, r_long_cat, r_loop_read, r_loop_list, r_loop_search,
r_big_write (2 MB content), r_big_command (2 MB command), r_nan, r_nan_timeout, r_infinity_timeout,
r_reply_5mb, r_parallel_300.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.attacks.lab import Lab, crashed
from tests.fakeserver import Reply, text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

TWO_MB = "x" * (2 * 1024 * 1024)
CALLS: dict[str, tuple[str, dict[str, Any] | str]] = {
    "r_fifo_read": ("read_file", {"path": "pipe"}),
    "r_fifo_cat": ("bash", {"command": "cat pipe", "timeout": 5}),
    "r_fifo_search": ("search_files", {"pattern": "needle"}),
    "r_zero_read": ("read_file", {"path": "zero"}),
    "r_zero_cat": ("bash", {"command": "head -c 50000000 /dev/zero | tr '\\0' a", "timeout": 60}),
    "r_sparse_read": ("read_file", {"path": "big.bin"}),
    "r_sparse_search": ("search_files", {"pattern": "needle", "path": "big.bin"}),
    "r_long_read": ("read_file", {"path": "long.txt"}),
    "r_long_search": ("search_files", {"pattern": "needle", "path": "long.txt"}),
    "r_long_cat": ("bash", {"command": "cat long.txt", "timeout": 60}),
    "r_loop_read": ("read_file", {"path": "loop_a"}),
    "r_loop_list": ("list_files", {}),
    "r_loop_search": ("search_files", {"pattern": "needle", "path": "dirloop"}),
    "r_big_write": ("write_file", {"path": "big_arg.txt", "content": TWO_MB}),
    "r_big_command": ("bash", {"command": f"echo {TWO_MB} | wc -c"}),
    "r_nan": ("read_file", '{"path": NaN}'),
    "r_nan_timeout": ("bash", '{"command": "echo nan", "timeout": NaN}'),
    "r_infinity_timeout": ("bash", '{"command": "echo inf", "timeout": Infinity}'),
}
MAX_RESULT = 1_000_000


def plant(lab: Lab) -> None:
    p = lab.project
    os.mkfifo(p / "pipe")
    (p / "zero").symlink_to("/dev/zero")
    with open(p / "big.bin", "wb") as fh:
        fh.truncate(1024 ** 3)
    lab.write("long.txt", "a" * (40 * 1024 * 1024) + " needle\n")
    (p / "loop_a").symlink_to("loop_b")
    (p / "loop_b").symlink_to("loop_a")
    (p / "dirloop").mkdir()
    (p / "dirloop" / "self").symlink_to("..")
    lab.write("dirloop/note.txt", "a needle\n")
    (p / ".git").mkdir()


@pytest.fixture(scope="module")
def heavy(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = Lab(tmp_path_factory.mktemp("res"))
    plant(lab)
    reply = tool_reply(*CALLS.values(), call_ids=list(CALLS), chunk_size=65536)   # 2 MB in 7-char deltas: minutes
    lab.script(reply, *(text_reply("done") for _ in range(3)))      # a compaction may take one
    ran = lab.axon("run", "stress", "--yes", timeout=600)
    yield lab, ran
    lab.close()


@pytest.mark.parametrize("rid", list(CALLS))
def test_hostile_sizes_and_shapes_are_answered_without_a_crash(rid: str, heavy) -> None:  # type: ignore[no-untyped-def]
    lab, ran = heavy
    assert ran.code == 0 and not crashed(ran), ran.stderr[-3000:]
    carrying = [r for r in lab.server.requests if any(m.get("tool_call_id") == rid for m in r.messages)]
    assert carrying, "the call was never answered"
    answers = [m for m in carrying[-1].messages if m.get("tool_call_id") == rid]
    assert len(answers) == 1, f"answered {len(answers)} times"
    result = str(answers[0]["content"])
    assert len(result) <= MAX_RESULT, f"{len(result)} characters to the model"


def test_a_5_mb_reply_is_printed_whole(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    (lab.project / ".git").mkdir()
    answer = ("line of a very long answer\n" * 200_000)[: 5 * 1024 * 1024]
    lab.script(Reply(content=answer, chunk_size=65536))
    ran = lab.axon("run", "talk a lot", "--output-format", "json", timeout=300)
    assert ran.code == 0 and not crashed(ran), ran.stderr[-3000:]
    assert json.loads(ran.stdout)["result"] == answer.strip() or json.loads(ran.stdout)["result"] == answer


def test_300_parallel_calls_are_each_answered_once(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    (lab.project / ".git").mkdir()
    for n in range(300):
        lab.write(f"f/{n}.txt", f"file {n}\n")
    ids = [f"p{n}" for n in range(300)]
    lab.script(tool_reply(*(("read_file", {"path": f"f/{n}.txt"}) for n in range(300)), call_ids=ids),
               text_reply("read them all"))
    ran = lab.axon("run", "read everything", timeout=300)
    assert ran.code == 0 and not crashed(ran) and ran.stdout.strip() == "read them all", ran.stderr[-3000:]
    answered = [m["tool_call_id"] for m in lab.server.requests[1].messages if m.get("role") == "tool"]
    assert sorted(answered) == sorted(ids)
    by_id = {m["tool_call_id"]: m["content"] for m in lab.server.requests[1].messages if m.get("role") == "tool"}
    assert all(f"file {n}" in by_id[f"p{n}"] for n in range(300))
