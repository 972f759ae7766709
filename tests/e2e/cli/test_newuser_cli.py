"""What a new user sees from ``axon run``: exit codes for bad flag values, and progress lines on
stderr that keep a denial's hint, a validation error's fields and a spilled output's file."""

from __future__ import annotations

import re
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply


def test_bad_mode_flag_is_a_usage_error(server, run_axon) -> None:
    r = run_axon("run", "hi", "--mode", "yoloo")
    assert r.code == 2
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith("axon: error: flag --mode:") and "'yoloo'" in r.stderr
    assert server.requests == []


def test_bad_sandbox_flag_is_a_usage_error_in_every_command(server, run_axon) -> None:
    assert run_axon("run", "hi", "--sandbox", "nope").code == 2
    assert run_axon("config", "--mode", "nope").code == 2
    assert run_axon("permissions", "--mode", "nope").code == 2


def test_bad_mode_in_a_config_file_stays_a_config_error(server, run_axon, project: Path) -> None:
    (project / ".axon").mkdir()
    (project / ".axon" / "config.toml").write_text('mode = "yoloo"\n')
    r = run_axon("run", "hi")
    assert r.code == 1
    assert "config.toml" in r.stderr and "'yoloo'" in r.stderr


def test_denied_call_keeps_its_hint_on_stderr(server, run_axon, project: Path) -> None:
    (project / "a.txt").write_text("x\n")
    server.add(tool_reply(("bash", {"command": "touch b.txt && echo a long enough command to be cut"})),
               text_reply("done"))
    r = run_axon("run", "go", "--sandbox", "off")     # unsandboxed: touch asks in default mode
    assert r.code == 0 and r.stdout == "done\n"
    line = next(x for x in r.stderr.splitlines() if x.startswith("✗ bash("))
    assert "re-run with --yes" in line
    assert re.search(r'add the allow rule "bash\(touch b\.txt\)" to \.axon/permissions\.toml\) \(\d+ ms\)$', line)


def test_validation_error_shows_the_bad_fields(server, run_axon) -> None:
    server.add(tool_reply(("read_file", {"pathx": "a"})), text_reply("ok"))
    r = run_axon("run", "go")
    line = next(x for x in r.stderr.splitlines() if x.startswith("✗ read_file"))
    assert "path: Field required" in line and "unexpected argument 'pathx'" in line


def test_spilled_output_names_its_file_and_time_is_not_repeated(server, run_axon, project: Path) -> None:
    server.add(tool_reply(("bash", {"command": "seq 1 100000"})), text_reply("long"))
    r = run_axon("run", "go", "--yes")
    assert r.code == 0, r.stderr
    line = next(x for x in r.stderr.splitlines() if x.startswith("✓ bash(seq 1 100000)"))
    m = re.search(r"\[output truncated; full text in (\S+)\]", line)
    assert m, line
    spilled = project / m.group(1)
    assert spilled.is_file() and spilled.read_text().splitlines()[99999] == "100000"
    assert re.search(r"exit 0 in \d+\.\d s", line) and not line.endswith("ms)"), line
