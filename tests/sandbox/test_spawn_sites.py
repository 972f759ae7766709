"""Every place axon_cli starts a process, read from the code (AST): each is the outside-sandbox gate
(``machinery/sandbox/outside.py``) or on the allow-list below, with its reason. A new ``Popen``, ``os.system``,
``asyncio.create_subprocess_*`` or mcp ``stdio_client`` anywhere else fails this test."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "axon_cli"
SPAWNERS = {
    "subprocess": {"Popen", "run", "call", "check_call", "check_output", "getoutput", "getstatusoutput"},
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "os": {"system", "popen", "posix_spawn", "posix_spawnp", "fork", "forkpty", "execv", "execve", "execvp",
           "execvpe", "execl", "execle", "execlp", "execlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl",
           "spawnle", "spawnlp", "spawnlpe"},
    "pty": {"spawn", "fork"},
    "stdio": {"stdio_client"}, "mcp.client.stdio": {"stdio_client"},
}
ALLOWED = {
    "machinery/sandbox/outside.py": "THE gate: hooks, MCP servers, diagnostics, language servers, bash and jobs start here",
    "machinery/snapshots/shadow.py": "git for axon's own shadow snapshots (its own repository, fixed arguments)",
    "machinery/snapshots/fastimport.py": "git fast-import into axon's shadow snapshot repository",
    "kernel/gitsafe.py": "read-only git queries with hooks and config-run programs switched off",
    "tools/builtin/search/ripgrep.py": "ripgrep, a fixed program that runs no project code (no --pre)",
    "app/reports/doctor.py": "`rg --version` for axon doctor",
    "machinery/sandbox/probe.py": "the bwrap probe: `bwrap … true`, whether namespaces work here",
    "machinery/sandbox/hidden.py": "ripgrep --files to list the project's sensitive files for the hidden set",
    "machinery/sandbox/lifetime.py": "the keeper around what the gate starts: called only by outside.popen (held below)",
    "machinery/sandbox/keeper.py": "the keeper program starting the one command the gate handed it",
    "machinery/sandbox/netns.py": "bwrap holding the session's loopback-only network namespace, and its `true` trial",
}


def test_the_keeper_is_started_only_by_the_gate() -> None:
    """``lifetime.spawn`` runs what it is given outside the sandbox's control: only the gate may call it."""
    callers = sorted(str(path.relative_to(PACKAGE)) for path in PACKAGE.rglob("*.py")
                     if "lifetime import spawn" in path.read_text(encoding="utf-8")
                     or "lifetime.spawn(" in path.read_text(encoding="utf-8"))
    assert callers == ["machinery/sandbox/outside.py"]


def spawn_sites(package: Path = PACKAGE) -> list[tuple[str, int, str]]:
    """(module path, line, what) of every call that starts a process; ``from X import name`` aliases
    and ``import X as Y`` are followed."""
    found = []
    for path in sorted(package.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        modules: dict[str, str] = {}          # local name -> module
        names: dict[str, str] = {}            # local name -> "module.func"
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    modules[a.asname or a.name.split(".")[0]] = a.name if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom) and node.module:
                for a in node.names:
                    if a.name in SPAWNERS.get(node.module, ()) or a.name in SPAWNERS.get(node.module.rsplit(".", 1)[-1], ()):
                        names[a.asname or a.name] = f"{node.module}.{a.name}"
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            what = None
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                module = modules.get(func.value.id, "")
                if func.attr in SPAWNERS.get(module, ()) or func.attr in SPAWNERS.get(module.rsplit(".", 1)[-1], ()):
                    what = f"{module}.{func.attr}"
            elif isinstance(func, ast.Name) and func.id in names:
                what = names[func.id]
            if what:
                found.append((path.relative_to(package).as_posix(), node.lineno, what))
    return found


def test_every_spawn_site_is_the_gate_or_allowed_with_a_reason() -> None:
    outside = [site for site in spawn_sites() if site[0] not in ALLOWED]
    assert outside == [], f"processes started outside the gate (route them through machinery/sandbox/outside.py): {outside}"
    assert all(reason.strip() for reason in ALLOWED.values())


def test_the_gate_is_where_hooks_servers_and_commands_start() -> None:
    sites = {what for where, _, what in spawn_sites() if where in ("machinery/sandbox/outside.py", "machinery/sandbox/lifetime.py")}
    assert {"subprocess.Popen", "mcp.client.stdio.stdio_client"} <= sites


def test_a_planted_popen_is_found(tmp_path: Path) -> None:
    pkg = tmp_path / "axon_cli"
    (pkg / "tools").mkdir(parents=True)
    (pkg / "tools" / "sneaky.py").write_text("import subprocess as sp\nfrom os import system\nfrom asyncio import "
                                             "create_subprocess_exec as go\n\ndef f():\n    sp.Popen(['x'])\n"
                                             "    system('x')\n    go('x')\n")
    assert [(w, what) for w, _, what in spawn_sites(pkg)] == [
        ("tools/sneaky.py", "subprocess.Popen"), ("tools/sneaky.py", "os.system"),
        ("tools/sneaky.py", "asyncio.create_subprocess_exec")]
