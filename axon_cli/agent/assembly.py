"""Building an agent: a model client, the tool protocol the settings choose, and the loop over a
registry and a dispatcher. The one place they are put together, for the session
(``runtime.build_runtime``) and for each sub-agent (``session/extend/subagent.py``).

A sub-agent talks to the same endpoint as its session, so its client starts with what the session's
client has learned about that endpoint (parameters it rejects, that it cannot stream, that it
refuses ``"content": null``, the text protocol's stop sequence); its usage is its own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from axon_cli.agent.loop.agent import Agent
from axon_cli.agent.loop.seams import AgentCallbacks, TurnHooks
from axon_cli.agent.model.llm import LLMClient
from axon_cli.agent.protocols.builtin import make_protocol, system_block
from axon_cli.agent.protocols.interface import ToolProtocol
from axon_cli.kernel.events import EventSink
from axon_cli.settings.config import Settings
from axon_cli.tools.dispatch import Dispatcher
from axon_cli.tools.registry import ToolRegistry

__all__ = ["model_client", "build_agent"]

Prompt = str | Callable[[], str]


def model_client(settings: Settings, emit: EventSink, endpoint: LLMClient | None = None) -> LLMClient:
    """A model client for ``settings``; with ``endpoint`` (the session's client), it starts with the
    endpoint's quirks that client learned."""
    llm = LLMClient(settings, emit=emit)
    if endpoint is not None:
        llm.dropped_params = set(endpoint.dropped_params)
        llm.streaming, llm.null_content = endpoint.streaming, endpoint.null_content
        llm.extra_params = dict(endpoint.extra_params)
        llm.no_images = endpoint.no_images     # shared: a model found to take no images, for the whole session
    return llm


def build_agent(settings: Settings, registry: ToolRegistry, dispatcher: Dispatcher, llm: LLMClient, *,
                emit: EventSink, prompt: Prompt, context: Prompt = "", protocol: ToolProtocol | None = None,
                callbacks: AgentCallbacks | None = None, messages: list[dict[str, Any]] | None = None,
                turn_hooks: TurnHooks | None = None, shared_cancel: bool = False) -> Agent:
    """The loop for ``registry``'s tools, run through ``dispatcher`` (and its context). ``protocol``:
    the tool protocol (default: the one ``settings`` choose); what it adds to the system prompt is
    appended to ``prompt`` (a text, or a function giving the current one)."""
    chosen = protocol if protocol is not None else make_protocol(settings, registry, emit)
    return Agent(llm=llm, registry=registry, dispatcher=dispatcher, ctx=dispatcher.ctx, emit=emit,
                 system_prompt=_with_protocol(prompt, chosen, registry), context=context, protocol=chosen,
                 callbacks=callbacks, messages=messages, turn_hooks=turn_hooks, shared_cancel=shared_cancel)


def _with_protocol(prompt: Prompt, protocol: ToolProtocol, registry: ToolRegistry) -> Prompt:
    if callable(prompt):
        return lambda: prompt() + system_block(protocol, registry)
    return prompt + system_block(protocol, registry)
