"""The model client: streaming chat completions over the openai SDK (a reply read into a turn, tool
calls assembled by index: ``reply_reader``), retries with backoff and jitter (honouring Retry-After),
usage accounting.

The SDK's own retries are off (``max_retries=0``): every attempt is counted here, so
``max_attempts`` is the total. A stream that breaks off is retried whole; nothing of it is kept.
A streaming request answered with an empty stream (HTTP 200, then nothing: llama-cpp-python with
tools) or an error naming streaming is sent once more without streaming; if that works, the rest of
the session does not stream (a Notice says so) and each reply is shown as one delta.

How long a request may take, and how large its reply may be, is ``reply_deadline``'s: each attempt
ends ``request_timeout`` seconds after the reply last made progress, and no attempt starts (nor
waits) past ``request_timeout × max_attempts`` from the request's start. A reply of any shape —
not JSON, broken SSE, HTML from a proxy, silence — ends as an ``LLMError``, never another exception.
"""

from __future__ import annotations

import contextlib
import logging
import random
import time
import uuid
from collections.abc import Callable
from typing import Any

from axon_cli.agent.model.constrained import Constraint, call_text
from axon_cli.agent.model.endpoints import is_local_endpoint
from axon_cli.agent.model.llm_http import (
    api_message,
    cause,
    dropped_connection,
    is_transport_error,
    names_streaming,
    not_connected,
    retry_after,
    unreadable,
)
from axon_cli.agent.model.refusals import (
    OPTIONAL_PARAMS,
    drop_unsupported_param,
    error_kind,
    null_call_content,
    refuses_images,
    refuses_null_content,
)
from axon_cli.agent.model.reply_deadline import ReplyClock, ReplyTimeout
from axon_cli.agent.model.reply_reader import NoStream, Retryable, assemble, plain_turn, replay_deltas
from axon_cli.agent.model.turns import AssistantTurn, SessionUsage
from axon_cli.agent.model.vision import accepts_images, carries_images, without_images
from axon_cli.kernel.errors import ConfigError, ContextTooLong, LLMError
from axon_cli.kernel.events import EventSink, Notice, Retrying
from axon_cli.machinery.masking.userinfo import hide_userinfo
from axon_cli.settings.config import KEYLESS_HINT, Settings, endpoint_needs_key

__all__ = ["LLMClient", "AssistantTurn", "SessionUsage", "OPTIONAL_PARAMS"]

log = logging.getLogger("axon.llm")
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529}
# how servers say a request is longer than the context: OpenAI and vLLM ("maximum context length",
# context_length_exceeded), llama.cpp ("exceeds the available context size", exceed_context_size_error),
# llama-cpp-python ("Requested tokens (…) exceed context window of …"), Anthropic-style ("prompt is too long")
_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens", "prompt is too long",
                  "context window", "n_ctx", "context size", "exceed_context", "exceeds the context")


class LLMClient:
    def __init__(self, settings: Settings, emit: EventSink | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.emit = emit or (lambda _e: None)
        self.usage = SessionUsage()
        self.dropped_params: set[str] = set()
        self._streamed_any = False
        self.null_content = True   # False: the endpoint rejects "content": null next to tool_calls
        self.streaming = True   # False once a request streamed nothing but was answered without
        self._seen_ids: set[str] = set()
        self.extra_params: dict[str, Any] = {}   # e.g. ``stop`` for the text tool protocol
        self.no_images: set[str] = set()   # models the endpoint said take no images (this session)
        self._sleep = sleep
        self._client: Any = None
        self.clock = ReplyClock(settings.request_timeout)
        self.constraint = Constraint(is_local_endpoint(settings.base_url))   # what a constrained reply needs
        self._must_call: dict[str, Any] | None = None   # this request's call schema, while it is sent

    # -- client --------------------------------------------------------------------------------
    def _get_client(self) -> Any:
        if self._client is None:
            s = self.settings
            key = s.api_key
            if not key:
                if endpoint_needs_key(s.base_url):
                    raise ConfigError(f"no API key for {hide_userinfo(s.base_url or 'api.openai.com')}: {KEYLESS_HINT}")
                key = "not-needed"
            import openai  # heavy: imported only when a request is made

            from axon_cli.agent.model import tls

            http = tls.http_client() or openai.DefaultHttpxClient()
            http.event_hooks = {**http.event_hooks, "response": [*http.event_hooks["response"], self.clock.watch]}
            self._client = openai.OpenAI(api_key=key, base_url=s.base_url or None, timeout=s.request_timeout,
                                         max_retries=0, http_client=http)
            from axon_cli.agent.model import gcpause

            gcpause.resume()      # start-up is over (``axon run`` paused the collector until now)
        return self._client

    def takes_images(self) -> bool:
        """Whether the current model gets pictures: ``images``/``image_models`` in config, unless the
        endpoint already said this session that it cannot take them."""
        s = self.settings
        return s.model not in self.no_images and accepts_images(s.images, s.model, s.image_models)

    # -- one request, with retries -------------------------------------------------------------
    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                 on_text: Callable[[str], None] | None = None,
                 on_reasoning: Callable[[str], None] | None = None,
                 must_call: tuple[dict[str, Any], set[str]] | None = None) -> AssistantTurn:
        """One reply. ``must_call`` (a call schema and its tool names, ``constrained.py``): the reply
        is asked to be one such call where the endpoint honours it; a reply that is one comes back as
        a ``<tool_call>`` block."""
        constrain = must_call is not None and self.constraint.available
        self._must_call = must_call[0] if constrain and must_call is not None else None
        try:
            turn = self._complete(messages, tools, on_text, on_reasoning)
        finally:
            sent, self._must_call = self._must_call, None
        if sent is not None and must_call is not None and self.constraint.available:
            text = None if turn.tool_calls else call_text(turn.content, must_call[1])
            if text is not None:
                turn.content = text
            if turn.finish_reason != "length":
                self.constraint.replied(bool(turn.tool_calls) or text is not None)
        return turn

    def _complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                  on_text: Callable[[str], None] | None,
                  on_reasoning: Callable[[str], None] | None) -> AssistantTurn:
        attempts = self.settings.max_attempts
        attempt = 0
        self._get_client()     # the SDK's import (a thread at start-up) is not the endpoint's time
        self.clock.begin(self.settings.request_timeout, attempts)
        while True:
            attempt += 1
            self.clock.attempt()
            try:
                turn = self._stream_once(messages, tools, on_text, on_reasoning)
                self.usage.add(turn)
                return turn
            except (Retryable, ReplyTimeout) as e:
                if attempt >= attempts:
                    raise LLMError(f"model request failed after {attempt} attempts: {e}") from None
                delay = self._delay(attempt, getattr(e, "retry_after", None))
                if delay >= self.clock.left():
                    raise LLMError(f"model request failed after {attempt} attempt{'s' if attempt > 1 else ''}: {e} "
                                   f"(no time for another within request_timeout × max_attempts = "
                                   f"{self.settings.request_timeout * attempts:g} s)") from None
                self.emit(Retrying(attempt=attempt, max_attempts=attempts, delay_s=round(delay, 2),
                                   reason=str(e)))
                log.info("retrying in %.2fs after: %s", delay, e)
                self._sleep(delay)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), 120.0)
        base = self.settings.retry_base_delay * (2 ** (attempt - 1))
        return min(base, 30.0) * (0.5 + random.random() / 2)

    def request_params(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                       stream: bool | None = None) -> dict[str, Any]:
        s = self.settings
        if carries_images(messages) and not self.takes_images():
            messages = without_images(messages)   # a resumed session's pictures, or after the endpoint said no
        params: dict[str, Any] = {"model": s.model, "messages": messages, "stream": False}
        if self.streaming if stream is None else stream:
            params.update(stream=True, stream_options={"include_usage": True})
        if tools:
            params["tools"] = tools
            params["tool_choice"] = "auto"
        if s.temperature is not None:
            params["temperature"] = s.temperature
        if s.max_tokens is not None:
            params["max_tokens"] = s.max_tokens
        params.update(self.extra_params)
        if self._must_call is not None and self.constraint.available:
            params.update(self.constraint.params(self._must_call, bool(tools)))
        for name in self.dropped_params:
            params.pop(name, None)
        if not params["stream"]:
            params.pop("stream_options", None)
        return params

    def _create(self, params: dict[str, Any]) -> Any:
        """Send one request, mapping SDK errors; None when a parameter was dropped (send again)."""
        import openai

        try:
            try:
                return _post(self._get_client(), _request_body(params, self.null_content), self.clock.read_timeout())
            except UnicodeEncodeError:     # a lone surrogate (a model's "\ud800"): the SDK cannot encode it
                from axon_cli.kernel.textsafe import escape_surrogates_in

                params["messages"] = escape_surrogates_in(params["messages"])
                return _post(self._get_client(), _request_body(params, self.null_content), self.clock.read_timeout())
        except openai.APIStatusError as e:
            if self.constraint.refused(e.status_code, api_message(e), params):
                return None        # sent again in the next form, or unconstrained
            if (refuses_images(self, e, params) or drop_unsupported_param(self, e, params)
                    or refuses_null_content(self, e, params)):
                return None
            if params.get("stream") and names_streaming(api_message(e)):
                raise NoStream(f"HTTP {e.status_code}: {api_message(e)}") from None
            raise self._status_error(e) from None
        except openai.APITimeoutError:
            raise Retryable(f"the endpoint did not answer within {self.clock.request_timeout:g} s") from None
        except openai.APIConnectionError as e:
            if params.get("stream") and dropped_connection(e):
                raise NoStream(f"the server dropped the streaming request: {cause(e)}") from None
            where = hide_userinfo(self.settings.base_url or "api.openai.com")
            raise Retryable(f"cannot connect to {where} ({cause(e)})" if not_connected(e)
                             else f"no usable reply from {where} ({cause(e)})") from None
        except ValueError as e:   # a 200 whose body is not JSON (or not UTF-8)
            raise Retryable(unreadable(e)) from None

    def _stream_once(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                     on_text: Callable[[str], None] | None,
                     on_reasoning: Callable[[str], None] | None) -> AssistantTurn:
        if not self.streaming:
            return self._plain_once(messages, tools, on_text, on_reasoning)
        import openai

        self._streamed_any = False
        try:
            stream = self._create(self.request_params(messages, tools))
            if stream is None:
                return self._stream_once(messages, tools, on_text, on_reasoning)
            try:
                return assemble(self, stream, on_text, on_reasoning)
            except ValueError as e:      # a data: line that is not JSON, or not UTF-8
                raise Retryable(unreadable(e)) from None
            finally:
                with contextlib.suppress(Exception):
                    stream.close()
        except NoStream as e:
            return self._fall_back(messages, tools, on_text, on_reasoning, str(e))
        except openai.APIError as e:
            if names_streaming(str(e)):
                return self._fall_back(messages, tools, on_text, on_reasoning, str(e))
            if isinstance(e, openai.APIConnectionError) and not self._streamed_any:   # dropped mid-stream
                return self._fall_back(messages, tools, on_text, on_reasoning, f"the stream broke off: {cause(e)}")
            raise Retryable(f"stream error: {e}") from None
        except Exception as e:
            if is_transport_error(e) and not self._streamed_any:   # dropped before any content
                return self._fall_back(messages, tools, on_text, on_reasoning, f"the stream broke off: {e}")
            if is_transport_error(e):
                raise Retryable(f"stream broke off: {type(e).__name__}: {e}") from None
            raise

    # -- without streaming (servers that cannot stream some requests) ----------------------------
    def _fall_back(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                   on_text: Callable[[str], None] | None, on_reasoning: Callable[[str], None] | None,
                   why: str) -> AssistantTurn:
        """Send the same request once without streaming; if that works, stop streaming for the session."""
        log.info("the endpoint did not stream (%s); retrying without streaming", why)
        if self._client is not None:   # its pooled connection may be the one the server broke
            with contextlib.suppress(Exception):
                self._client.close()
            self._client = None
        self.clock.attempt()
        turn = self._plain_once(messages, tools, None, None)
        self.streaming = False
        self.emit(Notice(message=f"the endpoint did not stream this request ({why[:120]}); "
                                 "using non-streaming requests for this session"))
        replay_deltas(turn, on_text, on_reasoning)
        return turn

    def _plain_once(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                    on_text: Callable[[str], None] | None,
                    on_reasoning: Callable[[str], None] | None) -> AssistantTurn:
        params = self.request_params(messages, tools, stream=False)
        response = self._create(params)
        if response is None:
            return self._plain_once(messages, tools, on_text, on_reasoning)
        turn = plain_turn(self, response)
        replay_deltas(turn, on_text, on_reasoning)
        return turn

    # -- call ids (the replies are read in reply_reader.py) -------------------------------------
    def unique_call_id(self, call_id: str) -> str:
        """``call_id``, or a fresh one when it is empty or was already used in this session
        (some local servers send "call_0" every turn; each id must be answered exactly once)."""
        if not call_id or call_id in self._seen_ids:
            call_id = f"call_{uuid.uuid4().hex[:12]}"
        self._seen_ids.add(call_id)
        return call_id

    # -- errors --------------------------------------------------------------------------------
    def _status_error(self, e: Any) -> Exception:
        status = e.status_code
        message = api_message(e)
        if status in RETRY_STATUS:
            return Retryable(f"HTTP {status}: {message}", retry_after(e.response.headers))
        if status == 401:
            return LLMError(f"the endpoint rejected the API key (HTTP 401: {message}); "
                            "set OPENAI_API_KEY to a valid key")
        if status == 404:
            return LLMError(f"HTTP 404 from the endpoint: {message} (check --model "
                            f"'{self.settings.model}' and --base-url)")
        low = f"{message} {error_kind(e)}".lower()
        if status in (400, 413) and any(w in low for w in _CONTEXT_WORDS):
            return ContextTooLong(f"the request is longer than the model's context (HTTP {status}: {message})")
        return LLMError(f"HTTP {status} from the endpoint: {message}")


def _request_body(params: dict[str, Any], null_content: bool = True) -> dict[str, Any]:
    """The JSON body, sent as it is: messages and tools are already plain API-shaped dicts (the SDK's
    per-request transform would walk every message, tens of ms at a few hundred messages)."""
    if null_content or "messages" not in params:
        return dict(params)
    return {**params, "messages": [{**m, "content": ""} if null_call_content(m) else m for m in params["messages"]]}


def _post(client: Any, body: dict[str, Any], timeout: float) -> Any:
    """``POST /chat/completions`` through the SDK client's public ``post``: the request, headers,
    bearer auth, retries off, errors and the stream are the SDK's, exactly as ``chat.completions.create``
    makes them, without importing that resource (its structured-output and pagination helpers cost
    ``axon run`` ~25 ms of start-up on the SDK import thread, and axon uses none of them)."""
    from openai import Stream
    from openai.types.chat import ChatCompletion, ChatCompletionChunk

    return client.post("/chat/completions", body=body, cast_to=ChatCompletion, stream=bool(body.get("stream")),
                       stream_cls=Stream[ChatCompletionChunk],
                       options={"security": {"bearer_auth": True}, "timeout": timeout})
