"""The ``axon`` command: parses flags, builds a runtime, picks a frontend. Thin on purpose.

Heavy modules (openai, rich, prompt_toolkit, the core) are imported inside commands so that
``axon --help`` and ``axon --version`` stay fast.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Optional

import typer

from axon_cli.app.ui.command_support import fail as _fail
from axon_cli.app.ui.command_support import guard as _guard
from axon_cli.app.ui.command_support import load as _settings
from axon_cli.app.ui.command_support import project_root as _project_root
from axon_cli.app.ui.command_support import setup_logging as _setup_logging
from axon_cli.app.ui.run_entry import RUN_HELP, RUN_OPTIONS, TASK_HELP, option
from axon_cli.kernel.version import __version__

__all__ = ["app", "main"]

app = typer.Typer(add_completion=False, no_args_is_help=False, invoke_without_command=True,
                  help="axon: a terminal coding agent for any OpenAI-compatible endpoint.",
                  context_settings={"help_option_names": ["-h", "--help"]}, pretty_exceptions_enable=False)

def _option(param: str) -> Any:
    """The typer option of ``axon run``'s option ``param`` (``app/ui/run_entry.RUN_OPTIONS``, the one
    description): ``run`` is built from them all, and the other commands share the common ones."""
    described = option(param)
    extra: dict[str, Any] = {"min": described.minimum} if described.minimum is not None else {}
    return typer.Option(False if described.flag else described.default, *described.spellings, help=described.help,
                        **extra)


MODEL, BASE_URL, MODE, SANDBOX = _option("model"), _option("base_url"), _option("mode"), _option("sandbox")
PROTOCOL, DEBUG, TRUST = _option("tool_protocol"), _option("debug"), _option("trust")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"axon {__version__}")
        raise typer.Exit()


@app.callback()
def _root(ctx: typer.Context,
          version: bool = typer.Option(False, "--version", "-V", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    if ctx.invoked_subcommand is None:
        typer.echo(ctx.get_help())


def _run_command() -> Any:
    """``axon run``, its parameters made from ``RUN_OPTIONS``: TASK, then every option."""
    import inspect

    from axon_cli.app.ui.run_entry import RunArgs
    from axon_cli.app.ui.run_entry import run as run_args

    def run(**given: Any) -> None:
        raise typer.Exit(run_args(RunArgs(**given)))

    params = [inspect.Parameter("task", inspect.Parameter.KEYWORD_ONLY, default=typer.Argument(None, help=TASK_HELP),
                                annotation=Optional[str])]
    for described in RUN_OPTIONS:
        kind: Any = bool if described.flag else Optional[int] if described.minimum is not None else \
            str if described.default is not None else Optional[str]
        params.append(inspect.Parameter(described.param, inspect.Parameter.KEYWORD_ONLY,
                                        default=_option(described.param), annotation=kind))
    run.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    run.__doc__ = RUN_HELP
    return run


app.command("run")(_run_command())


def _chat_command() -> Any:
    """``axon chat``, its parameters made from ``CHAT_OPTIONS`` (``app/ui/chat_entry.py``)."""
    import inspect

    from axon_cli.app.ui.chat_entry import CHAT_HELP, CHAT_OPTIONS, ChatArgs
    from axon_cli.app.ui.chat_entry import chat as chat_args

    def chat(**given: Any) -> None:
        chat_args(ChatArgs(**given))

    params = []
    for described in CHAT_OPTIONS:
        extra: dict[str, Any] = {"show_default": False} if described.param == "resume" else {}
        default = typer.Option(False if described.flag else described.default, *described.spellings,
                               help=described.help, **extra)
        params.append(inspect.Parameter(described.param, inspect.Parameter.KEYWORD_ONLY, default=default,
                                        annotation=bool if described.flag else Optional[str]))
    chat.__signature__ = inspect.Signature(params, return_annotation=None)  # type: ignore[attr-defined]
    chat.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    chat.__doc__ = CHAT_HELP
    return chat


app.command("chat")(_chat_command())


@app.command()
def acp(debug: bool = DEBUG, trust: bool = TRUST) -> None:
    """Serve the Agent Client Protocol on stdin/stdout (for editors: Zed's agent_servers, other ACP clients)."""
    root = _project_root()
    _setup_logging(root, debug)
    from axon_cli.app.acp.server import serve

    raise typer.Exit(_guard(lambda: serve(trust_run=trust)) or 0)


@app.command("mcp-server")
def mcp_server(model: Optional[str] = MODEL, base_url: Optional[str] = BASE_URL,
               mode: Optional[str] = typer.Option(None, "--mode", help="The widest mode a client may ask for "
                                                  "(default: default)."),
               sandbox: Optional[str] = SANDBOX, debug: bool = DEBUG, trust: bool = TRUST) -> None:
    """Serve axon as an MCP server on stdin/stdout (tools `axon` and `axon-reply`)."""
    root = _project_root()
    _setup_logging(root, debug)

    def body() -> None:
        from axon_cli.app.mcp_server.axon_tools import ServerOptions, serve
        from axon_cli.kernel.errors import UsageError
        from axon_cli.policy.modes import MODES

        if mode is not None and mode not in MODES:
            raise UsageError(f"--mode must be one of {', '.join(MODES)} (got {mode!r})")
        serve(ServerOptions(mode=mode or "default", model=model, base_url=base_url, sandbox=sandbox, trust=trust))
    _guard(body)


@app.command()
def tools(model: Optional[str] = MODEL) -> None:
    """List the tools: active ones first, then deferred ones (activated by tool_search); Python tools
    with their file."""
    def body() -> None:
        from axon_cli.app.reports.tools_report import tools_listing

        root = _project_root()
        lines, problems = tools_listing(_settings(root, model=model), root)
        for line in problems:
            sys.stderr.write(f"axon: note: {line}\n")
        typer.echo("\n".join(lines))
    _guard(body)


@app.command("config")
def config_cmd(model: Optional[str] = MODEL, base_url: Optional[str] = BASE_URL, mode: Optional[str] = MODE) -> None:
    """Print the effective settings and where each value came from."""
    def body() -> None:
        from axon_cli.agent.model.local_defaults import apply_local_defaults
        from axon_cli.agent.model.served_model import choose_served_model
        from axon_cli.app.reports.trust import waiting_lines
        from axon_cli.settings.trust.widening import CONFIG

        loaded = _settings(_project_root(), model=model, base_url=base_url, mode=mode)
        choose_served_model(loaded)      # no model set: the endpoint's only one, as a run would
        apply_local_defaults(loaded)     # what a run would use on a local endpoint
        from axon_cli.app.reports.doctor import setting_line

        for key, value in loaded.settings.model_dump().items():
            typer.echo(setting_line(key, value, loaded.source(key)))
        for line in waiting_lines(loaded.trust.assess(), lambda item: item.source == CONFIG):
            typer.echo(line)
    _guard(body)


permissions_app = typer.Typer(pretty_exceptions_enable=False, help="Show the effective permission rules, or explain a decision.",
                              invoke_without_command=True)
app.add_typer(permissions_app, name="permissions")


@permissions_app.callback()
def permissions_show(ctx: typer.Context, mode: Optional[str] = MODE) -> None:
    """Print the effective rules and the file each came from."""
    if ctx.invoked_subcommand is not None:
        return

    def body() -> None:
        from axon_cli.app.reports.permissions import show_rules

        root = _project_root()
        typer.echo(show_rules(_settings(root, mode=mode), root))
    _guard(body)


@permissions_app.command("check")
def permissions_check(rule: str = typer.Argument(..., help="A call like 'bash(git push origin main)'."),
                      mode: Optional[str] = MODE) -> None:
    """Explain what axon would decide for a call, and which rule or mode decides it."""
    def body() -> None:
        from axon_cli.app.reports.permissions import explain

        root = _project_root()
        typer.echo(explain(rule, _settings(root, mode=mode), root))
    _guard(body)


@app.command()
def sessions() -> None:
    """List this project's sessions: id, date, first prompt, turns, tokens."""
    def body() -> None:
        from axon_cli.app.reports.sessions import sessions_table

        typer.echo(sessions_table(_project_root() / ".axon"))
    _guard(body)


mcp_app = typer.Typer(pretty_exceptions_enable=False, invoke_without_command=True,
                      help="MCP servers from config.toml and .mcp.json (alone: `axon mcp list`).")
app.add_typer(mcp_app, name="mcp")


@mcp_app.callback()
def mcp_default(ctx: typer.Context) -> None:
    """List the configured MCP servers and the tools each offers (as `axon mcp list`)."""
    if ctx.invoked_subcommand is None:
        mcp_list()


@mcp_app.command("list")
def mcp_list() -> None:
    """List the configured MCP servers and the tools each offers."""
    def body() -> None:
        from axon_cli.app.reports.mcp import list_servers_text

        root = _project_root()
        typer.echo(list_servers_text(_settings(root), root))
    _guard(body)


@app.command("trust")
def trust_cmd(yes: bool = typer.Option(False, "--yes", "-y", help="Trust what is waiting (remembered in the user's state dir)."),
              revoke: bool = typer.Option(False, "--revoke", help="Forget this folder's trust."),
              list_all: bool = typer.Option(False, "--list", help="List every trusted folder.")) -> None:
    """Show what this folder's files would widen (waiting for trust, or trusted); trust or forget it."""
    if yes + revoke + list_all > 1:
        _fail("give one of --yes, --revoke, --list", 2)

    def body() -> None:
        import os

        from axon_cli.app.reports import trust as report
        from axon_cli.settings.config import folder_trust, trust_requested

        if list_all:
            from axon_cli.settings.trust.trust_record import TrustStore

            typer.echo(report.folders_text(TrustStore()))
            return
        trust = folder_trust(_project_root(), for_run=trust_requested(os.environ))
        if revoke:
            typer.echo(report.revoked_text(trust, trust.revoke()))
        elif yes:
            typer.echo(report.approved_text(trust, trust.approve(trust.assess())))
        else:
            typer.echo(report.status_text(trust, trust.assess()))
    _guard(body)


@app.command()
def undo(count: int = typer.Argument(1, min=1, help="How many turns to undo, newest first."),
         list_: bool = typer.Option(False, "--list", "-l", help="List the turns that can be undone.")) -> None:
    """Put back what the last turn (or N turns) changed: file edits and bash commands alike."""
    def body() -> None:
        from axon_cli.app.reports.undo_report import undo_command

        root = _project_root()
        for line in undo_command(_settings(root), root, count, list_):
            typer.echo(line)
    _guard(body)


@app.command()
def doctor() -> None:
    """Check the endpoint, the sandbox, ripgrep, trust, undo and where the config comes from."""
    def body() -> int:
        from axon_cli.app.reports.doctor import run_doctor

        root = _project_root()
        return run_doctor(_settings(root), root, typer.echo)
    raise typer.Exit(_guard(body) or 0)


@app.command()
def init() -> None:
    """Create .axon/ here with a permissions file and a .gitignore for axon's state."""
    from axon_cli.app.reports.init import init_project

    typer.echo(_guard(lambda: init_project(Path.cwd())))


def _bare_resume(argv: list[str]) -> list[str]:
    """``axon chat --resume`` without an ID opens the picker; click has no optional option values,
    so a bare ``--resume``/``-r`` gets the empty ID."""
    if not argv or argv[0] != "chat":
        return argv
    out: list[str] = []
    for i, arg in enumerate(argv):
        out.append(arg)
        if arg in ("--resume", "-r") and (i + 1 == len(argv) or argv[i + 1].startswith("-")):
            out.append("")
    return out


def main() -> None:
    try:
        app(args=_bare_resume(sys.argv[1:]))
    except KeyboardInterrupt:
        sys.stderr.write("axon: interrupted\n")
        sys.exit(130)


if __name__ == "__main__":
    main()
