"""The tool registry: every known spec, which deferred ones are active, and discovery.

Adding a built-in tool is one module in ``axon_cli/tools/builtin/`` that defines
``TOOLS: list[ToolSpec]``, or ``build_tools(sandbox)`` when its specs depend on the session's sandbox
(``bash``), or a package there whose ``tool`` module does (its machinery beside it); nothing else is
edited.
"""

from __future__ import annotations

import dataclasses
import importlib
import threading
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from axon_cli.tools.spec import ToolSpec

if TYPE_CHECKING:
    from axon_cli.machinery.sandbox import SandboxStatus

__all__ = ["ToolRegistry", "builtin_specs", "BUILTIN_MODULES"]

# the modules that define built-in tools (``TOOLS`` or ``build_tools``), in the order the model sees them
BUILTIN_MODULES = ("files.file_tools", "memory", "search.search_tools", "bash.bash_tool", "todo",
                   "tool_search.tool_search_tool", "web.web_tool")


def builtin_specs(sandbox: SandboxStatus | None = None) -> list[ToolSpec[Any]]:
    """Every spec of the built-in tool modules (``BUILTIN_MODULES``, in that order), for a session whose
    sandbox is ``sandbox`` (``None``: to list or describe the tools; ``bash`` then names no sandbox and
    runs nothing)."""
    specs: list[ToolSpec[Any]] = []
    for name in BUILTIN_MODULES:
        module = importlib.import_module(f"axon_cli.tools.builtin.{name}")
        build = getattr(module, "build_tools", None)
        specs.extend(build(sandbox) if build is not None else getattr(module, "TOOLS", []))
    return specs


class ToolRegistry:
    def __init__(self, specs: Iterable[ToolSpec[Any]] = ()) -> None:
        self._specs: dict[str, ToolSpec[Any]] = {}
        self._activated: set[str] = set()
        self._lock = threading.Lock()
        for spec in specs:
            self.register(spec)

    @classmethod
    def with_builtins(cls, sandbox: SandboxStatus | None = None) -> ToolRegistry:
        return cls(builtin_specs(sandbox))

    def register(self, spec: ToolSpec[Any]) -> None:
        if spec.name in self._specs:
            raise ValueError(f"tool {spec.name!r} registered twice")
        self._specs[spec.name] = spec

    def unregister(self, name: str) -> None:
        self._specs.pop(name, None)
        self._activated.discard(name)

    def get(self, name: str) -> ToolSpec[Any] | None:
        return self._specs.get(name)

    def all(self) -> list[ToolSpec[Any]]:
        return list(self._specs.values())

    def names(self) -> list[str]:
        return list(self._specs)

    def is_active(self, name: str) -> bool:
        spec = self._specs.get(name)
        return spec is not None and (not spec.deferred or name in self._activated)

    def active(self) -> list[ToolSpec[Any]]:
        return [s for s in self._specs.values() if self.is_active(s.name)]

    def deferred(self) -> list[ToolSpec[Any]]:
        """Deferred tools not yet activated."""
        return [s for s in self._specs.values() if s.deferred and s.name not in self._activated]

    def activate(self, names: Iterable[str]) -> list[str]:
        done = []
        with self._lock:
            for name in names:
                if name in self._specs and self._specs[name].deferred:
                    self._activated.add(name)
                    done.append(name)
        return done

    def activated(self) -> list[str]:
        return sorted(self._activated)

    def demote(self, names: Iterable[str]) -> None:
        """Make tools deferred (used by compact prompt profiles)."""
        for name in names:
            if name in self._specs:   # a copy: the module-level spec is shared by every registry
                self._specs[name] = dataclasses.replace(self._specs[name], deferred=True)

    def openai_tools(self) -> list[dict[str, Any]]:
        return [s.openai_tool() for s in self.active()]
