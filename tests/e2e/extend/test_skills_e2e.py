"""End-to-end: Agent Skills (``SKILL.md`` folders) in the real ``axon run`` against the scripted
server, with skill folders shaped like real public ones (``tests/fixtures/claude_skills``, see its README):
only names and descriptions reach the first request, the ``skill`` tool hands over the body and the
folder, a skill's script is an ordinary bash call under the policy, and a broken ``SKILL.md`` is one
line and skipped."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.fakeserver import text_reply, tool_reply
from tests.sandbox.test_sandbox import needs_namespaces

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "claude_skills"


def front_and_body(folder: str) -> tuple[dict[str, str], str]:
    """The fixture's name/description as written (single-line values) and its body."""
    text = (FIXTURES / folder / "SKILL.md").read_text(encoding="utf-8")
    _, front, body = text.split("---\n", 2)
    fields = {}
    for line in front.splitlines():
        key, _, value = line.partition(": ")
        if key in ("name", "description"):
            fields[key] = value.strip().strip('"').replace('\\"', '"')
    return fields, body.strip()


def install(dest: Path, *folders: str) -> None:
    for folder in folders:
        shutil.copytree(FIXTURES / folder, dest / folder)


def skill_tool(request) -> dict:  # type: ignore[no-untyped-def]
    return next(t["function"] for t in request.body["tools"] if t["function"]["name"] == "skill")


def test_the_first_request_lists_skills_from_every_dir_but_holds_no_body(server, run_axon, project):
    home = project.parent / "home"
    install(project / ".claude" / "skills", "api-smoke-test", "incident-notes", "stash-review")
    install(project / ".axon" / "skills", "changelog-voice")
    install(project / ".agents" / "skills", "flaky-test-triage")
    install(home / ".claude" / "skills", "bisect-regressions")
    install(home / ".config" / "axon" / "skills", "property-tests")
    server.add(text_reply("ok"))
    ran = run_axon("run", "hello")
    assert ran.code == 0, ran.stderr
    first = server.requests[0]
    described = skill_tool(first)["description"]
    for folder in ("api-smoke-test", "incident-notes", "changelog-voice", "flaky-test-triage", "bisect-regressions",
                   "property-tests"):
        fields, body = front_and_body(folder)
        assert f"- {fields['name']}: {fields['description']}" in described, folder
        assert body[:200] not in json.dumps(first.body), f"{folder}'s body is in the first request"
    assert "stash-review" not in json.dumps(first.body)     # disable-model-invocation: true
    assert "Traceback" not in ran.stderr


def test_without_skills_there_is_no_skill_tool_and_the_list_is_capped(server, run_axon, project):
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    bare = server.requests[0]
    assert "skill" not in bare.tool_names
    many = project / ".claude" / "skills"
    for n in range(150):            # 150 skills with long descriptions: the list stays within its budget
        (many / f"s{n}").mkdir(parents=True)
        (many / f"s{n}" / "SKILL.md").write_text(f"---\nname: s{n}\ndescription: {'word ' * 150}end{n}\n---\nbody\n")
    server.add(text_reply("ok"))
    assert run_axon("run", "hello").code == 0
    listed = skill_tool(server.requests[1])["description"]
    assert len(listed) < 8_800 and "- s0: word" in listed and "more skills (not listed" in listed
    assert len(json.dumps(server.requests[1].body)) - len(json.dumps(bare.body)) < 9_500


def test_calling_the_skill_tool_hands_over_body_folder_and_files(server, run_axon, project):
    install(project / ".claude" / "skills", "api-smoke-test")
    server.add(tool_reply(("skill", {"name": "api-smoke-test"})), text_reply("loaded"))
    ran = run_axon("run", "test my web app")
    assert ran.code == 0, ran.stderr
    result = [m["content"] for m in server.requests[1].messages if m["role"] == "tool"][-1]
    _, body = front_and_body("api-smoke-test")
    assert body in result
    folder = (project / ".claude" / "skills" / "api-smoke-test").resolve()
    assert f"Skill folder: {folder}" in result
    for extra in ("scripts/serve_then_run.py", "examples/check_health.py", "examples/create_then_read.py"):
        assert f"- {extra}" in result
    assert "- SKILL.md" not in result


@needs_namespaces
def test_a_skills_script_is_a_bash_call_the_policy_judges(server, run_axon, project):
    """Untrusted project skill, default mode: its allowed-tools wait for trust, its script runs in the
    sandbox (it cannot touch a file outside the project) and the rm it asks for is denied headless."""
    outside = project.parent / "outside-canary.txt"
    outside.write_text("outside\n")
    canary = project / "keep.txt"
    canary.write_text("still here\n")
    skill = project / ".claude" / "skills" / "cleaner"
    (skill / "scripts").mkdir(parents=True)
    (skill / "scripts" / "clean.sh").write_text(f"#!/bin/sh\nrm -f {outside}\n")
    (skill / "SKILL.md").write_text("---\nname: cleaner\ndescription: cleans up\nallowed-tools: Bash(rm:*), Bash\n"
                                    "---\nRun scripts/clean.sh, then rm -f keep.txt.\n")
    calls = (("bash", {"command": f"sh {skill}/scripts/clean.sh"}), ("bash", {"command": "rm -f keep.txt"}))
    server.add(tool_reply(("skill", {"name": "cleaner"})), tool_reply(*calls), text_reply("done"))
    ran = run_axon("run", "clean up")
    assert ran.code == 0, ran.stderr
    assert outside.read_text() == "outside\n" and canary.read_text() == "still here\n"
    rm_result = [m["content"] for m in server.requests[2].messages if m["role"] == "tool"][-1]
    assert "Permission denied" in rm_result


def test_a_trusted_skills_allowed_tools_let_its_calls_run(server, run_axon, project):
    canary = project / "gone.txt"
    canary.write_text("x\n")
    skill = project / ".claude" / "skills" / "remover"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: remover\ndescription: removes files\nallowed-tools: Bash(rm:*)\n"
                                    "---\nRemove what you are told to.\n")
    server.add(tool_reply(("bash", {"command": "rm -f gone.txt"})), tool_reply(("skill", {"name": "remover"})),
               tool_reply(("bash", {"command": "rm -f gone.txt"})), text_reply("done"))
    ran = run_axon("run", "remove gone.txt", "--trust")
    assert ran.code == 0, ran.stderr
    before, after = [m["content"] for m in server.requests[3].messages if m["role"] == "tool"][-3::2]
    assert "denied" in before.lower()          # not loaded yet: the grant is not in force
    assert not canary.exists() and "denied" not in after.lower()


def test_broken_skill_files_are_one_line_each_and_skipped(server, run_axon, project):
    skills = project / ".claude" / "skills"
    for name, data in {"nofront": b"# Just a heading\nno front matter\n",
                       "badyaml": b'---\nname: badyaml\ndescription: "never closed\n---\nbody\n',
                       "huge": b"---\nname: huge\ndescription: big\n---\n" + b"x" * 300_000,
                       "binary": b"---\nname: binary\ndescription: bin\n---\n\x00\x01\x02",
                       "nodesc": b"---\nname: nodesc\n---\nbody\n"}.items():
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_bytes(data)
    install(skills, "changelog-voice")
    server.add(text_reply("ok"))
    ran = run_axon("run", "hello")
    assert ran.code == 0, ran.stderr
    assert "Traceback" not in ran.stderr
    for name in ("nofront", "badyaml", "huge", "binary", "nodesc"):
        lines = [line for line in ran.stderr.splitlines() if f".claude/skills/{name}/SKILL.md" in line]
        assert len(lines) == 1 and "skipped" in lines[0], (name, ran.stderr)
    described = skill_tool(server.requests[0])["description"]
    assert "- changelog-voice:" in described and "nofront" not in described


def test_axon_trust_shows_a_skills_allowed_tools_and_trusting_puts_them_in_force(server, run_axon, project):
    skill = project / ".claude" / "skills" / "remover"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: remover\ndescription: removes files\nallowed-tools: Bash(rm:*)\n"
                                    "---\nRemove what you are told to.\n")
    shown = run_axon("trust")
    assert "skill remover (.claude/skills/remover/SKILL.md)" in shown.stdout and "Bash(rm:*)" in shown.stdout
    assert run_axon("trust", "--yes").code == 0
    canary = project / "gone.txt"
    canary.write_text("x\n")
    server.add(tool_reply(("skill", {"name": "remover"})), tool_reply(("bash", {"command": "rm -f gone.txt"})),
               text_reply("done"))
    ran = run_axon("run", "remove gone.txt")
    assert ran.code == 0, ran.stderr
    assert not canary.exists()
