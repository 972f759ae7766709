"""Loading ``tools/*.py`` of the user's config dir and ``.axon/tools/*.py`` of the project.

A file's bytes are read once; a project file runs only if the folder's trust view allows exactly
those bytes, compiled from them (never re-read). A file that fails (syntax error, exception on
import, a function that cannot be a tool) is one line in ``problems`` and is skipped; the session
goes on. A project tool replaces a user tool of the same name (it was written for this project);
neither may take the name of a built-in or MCP tool.
"""

from __future__ import annotations

import re
import sys
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from axon_cli.session.extend.sources import ExtensionFile, extension_files, in_force
from axon_cli.settings.trust import TrustView
from axon_cli.tools.spec import ToolSpec

__all__ = ["PythonTools", "load_python_tools"]


@dataclass
class PythonTools:
    specs: list[ToolSpec[Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    waiting: list[str] = field(default_factory=list)     # project files not trusted (yet)


def _one_line(e: BaseException) -> str:
    text = str(e).strip().split("\n")[0]
    if isinstance(e, SyntaxError) and e.lineno:
        text = f"{e.msg} (line {e.lineno})"
    return f"{type(e).__name__}: {text}" if text else type(e).__name__


def _execute(file: ExtensionFile) -> types.ModuleType:
    """Run the file's bytes as a module (registered in sys.modules, so pydantic and dataclasses
    can resolve the names its annotations use)."""
    prefix = "axon_project_tools" if file.project else "axon_user_tools"
    name = prefix + "." + re.sub(r"\W", "_", file.stem)
    code = compile(file.data, str(file.path), "exec", dont_inherit=True)
    module = types.ModuleType(name)
    module.__file__ = str(file.path)
    sys.modules[name] = module
    try:
        exec(code, module.__dict__)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def _specs_of(file: ExtensionFile, problems: list[str]) -> list[ToolSpec[Any]]:
    # loaded when a tool file exists
    from axon_cli.session.extend.function_schema import SchemaError
    from axon_cli.session.extend.pytools import options_of, spec_for

    try:
        module = _execute(file)
    except KeyboardInterrupt:
        raise
    except BaseException as e:   # SystemExit included: a tool file never ends axon
        problems.append(f"{file.shown}: {_one_line(e)}; skipped")
        return []
    specs = []
    found = [obj for obj in vars(module).values()
             if options_of(obj) is not None and getattr(obj, "__module__", None) == module.__name__]
    if not found:
        problems.append(f"{file.shown}: no @tool function in it; nothing loaded")
    for fn in found:
        options = options_of(fn)
        assert options is not None
        try:
            specs.append(spec_for(fn, options, file.shown))
        except SchemaError as e:
            problems.append(f"{file.shown}: tool {fn.__name__!r} skipped: {e}")
    return specs


def load_python_tools(project_root: Path, trust: TrustView, taken: set[str]) -> PythonTools:
    """Every tool the user's and (trusted) project's tool files define; ``taken`` are names in use."""
    files, problems = extension_files(project_root, "tools", ".py")
    out = PythonTools(problems=problems)
    chosen: dict[str, ToolSpec[Any]] = {}
    for file in files:
        if not in_force(file, "tool", trust):
            out.waiting.append(file.shown)
            continue
        for spec in _specs_of(file, out.problems):
            if spec.name in taken:
                out.problems.append(f"{file.shown}: tool {spec.name!r} skipped: a built-in or MCP tool "
                                    "has that name")
            else:
                chosen[spec.name] = spec      # a project tool comes later and replaces a user one
    out.specs = list(chosen.values())
    return out
