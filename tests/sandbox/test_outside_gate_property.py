"""Property: for command forms drawn from a grammar (interpreters × their flags, known and not ×
``cd`` × redirections and pipes into an interpreter × variables × runners × wrappers) over project
scripts the model can rewrite, no rewritten content ever runs outside unasked.

Each example: a throw-away project with scripts of every kind, the session's ``OutsideGate`` made
(what the command runs is remembered), then some of the project's files (drawn) are rewritten to touch a canary
outside the project (the model's sandboxed rewrite). The gate is asked with nobody to ask (headless);
when it says "outside", the command is executed for real with bash in the project, and the canary
must not appear. Refused, it does not run — as the hook runner and the MCP client do.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from axon_cli.machinery.sandbox.outside import Launch, OutsideGate
from tests.budget import examples

SCRIPTS = {"tools/s.py": "py", "tools/ok.py": "py", "tools/s.sh": "sh", "tools/s.js": "js", "tools/s.pl": "pl",
           "tools/Makefile": "make", "Makefile": "make", "tools/package.json": "npm"}
FLAGS = {
    "python3": ["-I", "-E", "-O", "-OO", "-B", "-s", "-S", "-u", "-q", "-b", "-bb", "-d", "-x", "-X dev", "-W ignore",
                "-IB", "-Wignore", "-P", "-R", "--check-hash-based-pycs never", "-Q", "-c pass", "-m tools.s", "-"],
    "sh": ["-e", "-u", "-x", "-eu", "-o pipefail", "-s", "-c :", "-"],
    "bash": ["-e", "--norc", "--noprofile", "-euo pipefail", "-O extglob", "--rcfile x", "-"],
    "node": ["--no-warnings", "--enable-source-maps", "-r ./tools/s.js", "--require ./tools/ok.js", "--import x",
             "-e 1", "--stack-size=500", "--frozen-intrinsics"],
    "perl": ["-w", "-W", "-T", "-Itools", "-Mstrict", "-e 1", "-l"],
}
SCRIPT_OF = {"python3": ["tools/s.py", "tools/ok.py"], "sh": ["tools/s.sh"], "bash": ["tools/s.sh"],
             "node": ["tools/s.js"], "perl": ["tools/s.pl"]}
PATH_FORMS = ["{p}", "./{p}", '"$CLAUDE_PROJECT_DIR"/{p}', "${{CLAUDE_PROJECT_DIR}}/{p}", "$AXON_PROJECT_DIR/{p}",
              '"${{CLAUDE_PROJECT_DIR:-.}}"/{p}', "$PWD/{p}", "$(pwd)/{p}", "`pwd`/{p}", "tools/*.{ext}"]
WRAPPERS = ["{c}", "env A=1 {c}", "env PYTHONPATH=tools {c}", "timeout 20 {c}", "nice {c}", "command {c}",
            "exec {c}", "bash -c {q}", "sh -c {q}", "{c} | cat", "true && {c}", "{c} 2>/dev/null", "eval {q}",
            "x=tools; {c}"]
OTHERS = ["cd tools && sh s.sh", "cd tools; python3 s.py", "pushd tools >/dev/null && perl s.pl",
          "sh < tools/s.sh", "python3 < tools/s.py", "cat tools/s.py | python3", "bash -s < tools/s.sh",
          "python3 - < tools/s.py", "make -s -C tools run", "make -s -f tools/Makefile run", "make -s run",
          "npm --silent --prefix tools run go", "source tools/s.sh", ". tools/s.sh", "sh tools/s.sh <<'EOF'\nx\nEOF",
          "bash <<'EOF'\nsh tools/s.sh\nEOF", "f=tools/s.sh; sh $f", "find tools -name s.sh -exec sh {} \\;",
          "xargs sh <<< tools/s.sh", "python3 -c 'import runpy; runpy.run_path(\"tools/s.py\")'",
          "node -e 'require(\"./tools/s.js\")'", "tools/s.sh", "./tools/s.sh"]


def body(kind: str, target: str) -> str:
    return {"py": f"open({target!r}, 'w').close()\n", "sh": f"touch {shlex.quote(target)}\n",
            "js": f"require('fs').writeFileSync({json.dumps(target)}, '')\n",
            "pl": f"open(my $f, '>', {json.dumps(target)});\n",
            "make": f"run:\n\t@touch {shlex.quote(target)}\n",
            "npm": json.dumps({"name": "t", "scripts": {"go": f"touch {shlex.quote(target)}"}})}[kind]


@st.composite
def commands(draw: st.DrawFn) -> str:
    if draw(st.booleans()):
        core = draw(st.sampled_from(OTHERS))
    else:
        interpreter = draw(st.sampled_from(sorted(FLAGS)))
        flags = draw(st.lists(st.sampled_from(FLAGS[interpreter]), max_size=2))
        script = draw(st.sampled_from(SCRIPT_OF[interpreter]))
        form = draw(st.sampled_from(PATH_FORMS))
        path = form.format(p=script, ext=script.rsplit(".", 1)[-1])
        core = " ".join([interpreter, *flags, path])
    wrapper = draw(st.sampled_from(WRAPPERS))
    return wrapper.format(c=core, q=shlex.quote(core))


def _plant(root: Path, canary: str | None, only: frozenset[str] | None = None) -> None:
    for rel, kind in SCRIPTS.items():
        if only is not None and rel not in only:
            continue
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body(kind, canary or str(root / "ran")))
        path.chmod(0o755)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(command=commands(), rewritten=st.frozensets(st.sampled_from(sorted(SCRIPTS)), min_size=1))
def test_no_rewritten_content_runs_outside_unasked(command: str, rewritten: frozenset[str]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root, canary = Path(tmp) / "proj", str(Path(tmp) / "CANARY")
        root.mkdir()
        _plant(root, None)
        gate = OutsideGate(root)
        launch = Launch("hook", "hook", command=command, cwd=root)
        gate.remember([launch])
        _plant(root, canary, rewritten)                # the model's rewrite, during the session
        verdict = gate.decide(launch)
        if verdict.where != "outside":
            return                                     # refused or sandboxed: not run outside
        env = {**os.environ, "CLAUDE_PROJECT_DIR": str(root), "AXON_PROJECT_DIR": str(root), "HOME": tmp}
        subprocess.run(["bash", "-c", command], cwd=root, env=env, stdin=subprocess.DEVNULL, capture_output=True,
                       timeout=60)
        assert not os.path.exists(canary), f"`{command}` ran rewritten content outside, unasked"
