"""Runs the composite ``action.yml`` the way a GitHub runner does, as far as its steps need: each
``run:`` step by ``bash --noprofile --norc -eo pipefail`` with its ``env:`` evaluated, ``$GITHUB_OUTPUT``
read back into ``steps.<id>.outputs``, ``if:`` conditions honoured, ``uses:`` steps skipped.

The expression evaluator knows only what the file uses — ``inputs.*``, ``steps.*.outputs.*``,
``github.*``, string literals, ``==``, ``!=`` and ``&&`` — and raises on anything else, so a new
construct in action.yml fails the tests instead of being guessed at.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
OPERAND = re.compile(r"^(?:'(?P<lit>[^']*)'|(?P<ref>[A-Za-z_][\w.-]*))$")


@dataclass
class ActionRun:
    steps: dict[str, dict[str, str]] = field(default_factory=dict)    # step id -> its outputs
    ran: list[str] = field(default_factory=list)                       # names of the steps that ran
    skipped_uses: list[str] = field(default_factory=list)
    failed: str | None = None                                          # the step that failed, if any
    outputs: dict[str, str] = field(default_factory=dict)
    stderr: str = ""


def parse_outputs(text: str) -> dict[str, str]:
    """``$GITHUB_OUTPUT``'s ``name=value`` lines and ``name<<DELIM`` … ``DELIM`` blocks."""
    out: dict[str, str] = {}
    lines = iter(text.split("\n"))
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            body: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                body.append(inner)
            else:
                raise ValueError(f"output {name}: no closing {delimiter}")
            out[name] = "\n".join(body)
        elif line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


class ActionRunner:
    def __init__(self, action_file: Path, inputs: dict[str, str], github: dict[str, str]) -> None:
        self.spec: dict[str, Any] = yaml.safe_load(action_file.read_text())
        declared = self.spec["inputs"]
        unknown = set(inputs) - set(declared)
        assert not unknown, f"inputs the action does not declare: {unknown}"
        self.github = github
        self.run_state = ActionRun()
        self.inputs = {name: str(inputs.get(name, spec.get("default", ""))) for name, spec in declared.items()}
        self.inputs = {name: self.substitute(value) for name, value in self.inputs.items()}   # ${{ github.token }}

    # -- expressions ---------------------------------------------------------------------------
    def operand(self, text: str) -> str:
        match = OPERAND.match(text.strip())
        if not match:
            raise ValueError(f"unsupported expression: {text!r}")
        if match["lit"] is not None:
            return match["lit"]
        parts = match["ref"].split(".")
        if parts[0] == "inputs" and len(parts) == 2:
            return self.inputs[parts[1]]
        if parts[0] == "github" and len(parts) == 2:
            return self.github[parts[1]]
        if parts[0] == "steps" and len(parts) == 4 and parts[2] == "outputs":
            return self.run_state.steps.get(parts[1], {}).get(parts[3], "")
        raise ValueError(f"unsupported reference: {text!r}")

    def condition(self, text: str) -> bool:
        for clause in text.split("&&"):
            for op in ("==", "!="):
                if op in clause:
                    left, right = clause.split(op)
                    equal = self.operand(left) == self.operand(right)
                    if equal != (op == "=="):
                        return False
                    break
            else:
                raise ValueError(f"unsupported condition: {clause!r}")
        return True

    def substitute(self, text: str) -> str:
        return EXPR.sub(lambda m: self.operand(m.group(1)), text)

    # -- steps ---------------------------------------------------------------------------------
    def run(self, base_env: dict[str, str], workspace: Path, temp: Path) -> ActionRun:
        state = self.run_state
        for number, step in enumerate(self.spec["runs"]["steps"]):
            name = step.get("name", f"step {number}")
            if "if" in step and not self.condition(EXPR.sub(lambda m: m.group(1), str(step["if"]))):
                continue
            if "uses" in step:
                state.skipped_uses.append(step["uses"])
                continue
            assert step.get("shell") == "bash", f"{name}: a composite run step needs shell: bash"
            output_file = temp / f"output-{number}"
            output_file.write_text("")
            script = temp / f"step-{number}.sh"
            script.write_text(step["run"])
            env = {**base_env, "GITHUB_OUTPUT": str(output_file), "RUNNER_TEMP": str(temp),
                   **{key: self.substitute(str(value)) for key, value in (step.get("env") or {}).items()}}
            proc = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
                                  cwd=workspace, env=env, capture_output=True, text=True, timeout=90,
                                  stdin=subprocess.DEVNULL)
            state.ran.append(name)
            state.stderr += proc.stderr
            if "id" in step:
                state.steps[step["id"]] = parse_outputs(output_file.read_text())
            if proc.returncode != 0:
                state.failed = name
                break
        state.outputs = {name: self.substitute(spec["value"]) for name, spec in self.spec["outputs"].items()}
        return state


def stub_tools(bin_dir: Path, python: str) -> Path:
    """``gh`` records its arguments and the body file it was given; ``python -m pip`` records its
    arguments (the install itself is the Harbor test's business); any other ``python`` is the real one."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    log = bin_dir.parent / "calls.jsonl"
    recorder = (f"import json, sys\nargs = sys.argv[2:]\nentry = {{'tool': sys.argv[1], 'args': args}}\n"
                "if '--body-file' in args:\n    entry['body'] = open(args[args.index('--body-file') + 1]).read()\n"
                f"open({str(log)!r}, 'a').write(json.dumps(entry) + '\\n')\n")
    (bin_dir / "record.py").write_text(recorder)
    (bin_dir / "gh").write_text(f'#!/bin/sh\nexec {python} {bin_dir}/record.py gh "$@"\n')
    (bin_dir / "python").write_text(
        f'#!/bin/sh\nif [ "$1" = "-m" ] && [ "$2" = "pip" ]; then exec {python} {bin_dir}/record.py pip "$@"; fi\n'
        f'exec {python} "$@"\n')
    for tool in ("gh", "python"):
        (bin_dir / tool).chmod(0o755)
    return log


def read_calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def path_with(bin_dir: Path, axon_bin: Path) -> str:
    return os.pathsep.join([str(bin_dir), str(axon_bin), os.environ.get("PATH", "")])
