"""One tool call and what is known about it, computed once and read by everyone.

A ``ToolCall`` is the model's request as it arrived: id, tool name, the raw JSON text. Its parse
(``ToolCall.parsed``), canonical identity (``ToolCall.key``) and, against a registry, its validated
input and facts (``prepared``: read-only, destructive, concurrency-safe, the paths it names, and for
a shell command the analysis) are computed the first time anyone asks and kept on the call: the
loop's guards, the protocols, the guidance, the policy and the dispatcher all read the same ones.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from axon_cli.kernel.loaders import json_value

if TYPE_CHECKING:
    from pydantic import BaseModel

    from axon_cli.tools.registry import ToolRegistry
    from axon_cli.tools.spec import ToolSpec

__all__ = ["ToolCall", "CallFacts", "Known", "prepared", "facts_of"]


@dataclass(frozen=True)
class CallFacts:
    """The input-dependent facts of one call, as its tool says."""

    read_only: bool = False
    destructive: bool = False
    concurrency_safe: bool = False
    paths: tuple[str, ...] | None = ()   # None: the tool could not say (the policy then denies)
    shell: Any = None                 # a shell command's analysis (permissions.shell.analyze), once


@dataclass(frozen=True)
class Known:
    """A call whose tool is known and whose arguments validated."""

    spec: ToolSpec[Any]
    tool_input: BaseModel
    args: dict[str, Any]
    facts: CallFacts


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str                    # the raw JSON text the model sent
    source: Literal["native", "text"] = "native"
    _memo: dict[str, Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @classmethod
    def of(cls, id: str, name: str, args: dict[str, Any], source: Literal["native", "text"] = "text") -> ToolCall:
        """A call whose arguments were already parsed (a call written as text): kept, not parsed again."""
        call = cls(id, name, json.dumps(args), source)
        call._memo["parsed"] = args
        return call

    def parsed(self) -> Any:
        """The arguments parsed from JSON (``{}`` for none), once; a ``ValueError`` when they are not
        JSON (raised again on every ask)."""
        if "parsed" not in self._memo:
            try:
                self._memo["parsed"] = json_value(self.arguments) if self.arguments.strip() else {}
            except ValueError as e:
                self._memo["parsed"] = e
        value = self._memo["parsed"]
        if isinstance(value, ValueError):
            raise value
        return value

    @property
    def key(self) -> str:
        """The call's name and arguments, the arguments in a canonical form (its identity)."""
        if "key" not in self._memo:
            try:
                args = json.dumps(self.parsed(), sort_keys=True)
            except (ValueError, TypeError):
                args = self.arguments
            self._memo["key"] = f"{self.name}:{args}"
        return str(self._memo["key"])


def prepared(registry: ToolRegistry, call: ToolCall) -> Known | None:
    """The call's tool, validated input and facts, computed once; None when the tool is unknown or the
    arguments are not a valid input for it (dispatch says why to the model)."""
    if "known" in call._memo:
        known: Known | None = call._memo["known"]
        return known
    known = None
    spec = registry.get(call.name)
    if spec is not None:
        try:
            args = call.parsed()
            if isinstance(args, dict):
                tool_input = spec.input_model.model_validate(args)
                known = Known(spec, tool_input, args, facts_of(spec, tool_input))
        except Exception:
            known = None
    call._memo["known"] = known
    return known


def facts_of(spec: ToolSpec[Any], tool_input: BaseModel) -> CallFacts:
    """The facts of one validated input: the tool's own ``facts`` when it has one (a shell tool analyses
    the command once for all of them), else its separate fact functions; a fact that fails to compute
    is the cautious value."""
    if spec.facts is not None:
        try:
            return spec.facts(tool_input)
        except Exception:
            return CallFacts()
    return CallFacts(_safely(spec.is_read_only, tool_input), _safely(spec.is_destructive, tool_input, True),
                     _safely(spec.concurrency_safe, tool_input), _paths(spec, tool_input))


def _safely(fn: Any, tool_input: BaseModel, failed: bool = False) -> bool:
    try:
        return bool(fn(tool_input))
    except Exception:
        return failed


def _paths(spec: ToolSpec[Any], tool_input: BaseModel) -> tuple[str, ...] | None:
    try:
        return tuple(str(p) for p in spec.paths(tool_input))
    except Exception:
        return None
