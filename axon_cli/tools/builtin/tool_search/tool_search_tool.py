"""``tool_search(query)``: find deferred tools by keywords and activate them for the session.

Deferred tools (memory, todo, every MCP tool) are not sent with the first request, to keep it
small; the system prompt lists them by name. ``tool_search`` ranks them (``ranking.py`` beside it)
and activates the best few in the registry, which the agent asks for the active tools before each
request, so they are callable from the model's next reply on. ``select:a,b`` activates exact names.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from axon_cli.tools.spec import ToolCatalog, ToolContext, ToolError, ToolOutput, ToolSpec

__all__ = ["TOOLS", "ToolSearchInput", "tool_search", "MAX_ACTIVATED", "RELATIVE_CUTOFF", "MIN_SCORE"]

MAX_ACTIVATED = 3
RELATIVE_CUTOFF = 0.4      # keep matches scoring at least this share of the best one
MIN_SCORE = 0.25           # below this a match is noise (one weak word in a long description)
SELECT = "select:"


class ToolSearchInput(BaseModel):
    query: str = Field(description="Keywords, or 'select:name1,name2' for exact names")


def _registry(ctx: ToolContext) -> ToolCatalog:
    if ctx.registry is None:
        raise ToolError("no tool registry in this session")
    return ctx.registry


def _deferred_specs(registry: ToolCatalog) -> list[ToolSpec[Any]]:
    """Every deferred tool, activated or not (an activated one is reported as already active)."""
    return [s for s in registry.all() if s.deferred]


def _params(spec: ToolSpec[Any]) -> str:
    props = spec.json_schema().get("properties", {})
    required = set(spec.json_schema().get("required", []))
    return ", ".join(p if p in required else f"{p}?" for p in props)


def _describe(spec: ToolSpec[Any]) -> str:
    lines = spec.description.strip().splitlines() or [spec.one_line()]
    text = lines[0] if len(lines[0]) <= 200 else lines[0][:199] + "…"
    return f"- {spec.name}({_params(spec)}): {text}"


def _not_found(registry: ToolCatalog, what: str) -> ToolOutput:
    names = ", ".join(s.name for s in registry.deferred()) or "(none)"
    return ToolOutput(f"{what}\nDeferred tools not yet active: {names}", summary="no match")


def _report(registry: ToolCatalog, specs: list[ToolSpec[Any]]) -> ToolOutput:
    new = registry.activate(s.name for s in specs if not registry.is_active(s.name))
    lines = []
    if new:
        lines.append(f"Activated {len(new)} tool{'s' if len(new) != 1 else ''}; call "
                     f"{'them' if len(new) != 1 else 'it'} from your next reply on:")
        lines += [_describe(s) for s in specs if s.name in new]
    already = [s for s in specs if s.name not in new]
    if already:
        lines.append("Already active:")
        lines += [_describe(s) for s in already]
    summary = f"activated {', '.join(new)}" if new else "already active"
    return ToolOutput("\n".join(lines), summary=summary, display={"activated": new})


def _select(registry: ToolCatalog, names_text: str) -> ToolOutput:
    names = [n.strip() for n in names_text.split(",") if n.strip()]
    if not names:
        raise ToolError("select: needs tool names, e.g. 'select:memory_save,memory_read'")
    found = [s for s in (registry.get(n) for n in names) if s is not None]
    missing = [n for n in names if registry.get(n) is None]
    if not found:
        return _not_found(registry, f"No tool named {', '.join(missing)}.")
    out = _report(registry, found)
    if missing:
        out.text += f"\nNo tool named: {', '.join(missing)}."
    return out


def tool_search(inp: ToolSearchInput, ctx: ToolContext) -> ToolOutput:
    registry = _registry(ctx)
    query = inp.query.strip()
    if query.lower().startswith(SELECT):
        return _select(registry, query[len(SELECT):])
    if not query:
        raise ToolError("the query is empty; give keywords such as 'memory' or 'github issue'")
    from axon_cli.tools.builtin.tool_search.ranking import rank_tools  # loaded on the first search

    ranked = rank_tools(query, _deferred_specs(registry))
    if not ranked or ranked[0].score < MIN_SCORE:
        return _not_found(registry, f"No deferred tool matches {query!r}.")
    cutoff = max(MIN_SCORE, ranked[0].score * RELATIVE_CUTOFF)
    best = [r.spec for r in ranked[:MAX_ACTIVATED] if r.score >= cutoff]
    return _report(registry, best)


TOOLS: list[ToolSpec[Any]] = [
    ToolSpec(
        name="tool_search",
        description=("Activate deferred tools (listed in the system prompt) by keywords, or exact names "
                     "with 'select:a,b'. They are callable from your next reply on."),
        input_model=ToolSearchInput,
        handler=tool_search,
        category="other",
        is_read_only=lambda _i: True,
        summarize=lambda i: i.query,
        max_result_chars=20_000,
    ),
]
