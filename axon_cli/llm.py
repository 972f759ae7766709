"""The model client: streaming chat completions over the openai SDK, tool-call assembly by index,
retries with backoff and jitter (honouring Retry-After), usage accounting.

The SDK's own retries are off (``max_retries=0``): every attempt is counted here, so
``max_attempts`` is the total. A stream that breaks off is retried whole; nothing of it is kept.
"""

from __future__ import annotations

import email.utils
import json
import logging
import random
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from axon_cli.config import KEYLESS_HINT, Settings, endpoint_needs_key
from axon_cli.errors import ConfigError, ContextTooLong, LLMError
from axon_cli.events import EventSink, Retrying
from axon_cli.tools.dispatch import ToolCall

__all__ = ["LLMClient", "AssistantTurn", "SessionUsage", "OPTIONAL_PARAMS"]

log = logging.getLogger("axon.llm")
RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504, 520, 522, 524, 529}
OPTIONAL_PARAMS = ("stream_options", "tool_choice", "parallel_tool_calls", "stop")
_CONTEXT_WORDS = ("context length", "context_length", "maximum context", "too many tokens",
                  "prompt is too long", "context window", "n_ctx")


@dataclass
class AssistantTurn:
    content: str = ""
    tool_calls: list[ToolCall] = field(default_factory=list)
    finish_reason: str | None = None
    reasoning: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    call_errors: list[str] = field(default_factory=list)   # text calls that could not be used

    def message(self) -> dict[str, Any]:
        """The assistant message as it goes back into the conversation."""
        msg: dict[str, Any] = {"role": "assistant", "content": self.content or None}
        if self.tool_calls:
            msg["tool_calls"] = [
                {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
                for c in self.tool_calls if c.source == "native"
            ] or None
            if msg["tool_calls"] is None:
                del msg["tool_calls"]
        if msg["content"] is None and "tool_calls" not in msg:
            msg["content"] = ""
        return msg


@dataclass
class SessionUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    last_prompt_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, turn: AssistantTurn) -> None:
        self.prompt_tokens += turn.prompt_tokens
        self.completion_tokens += turn.completion_tokens
        self.requests += 1
        if turn.prompt_tokens:
            self.last_prompt_tokens = turn.prompt_tokens

    def as_dict(self) -> dict[str, int]:
        return {"prompt_tokens": self.prompt_tokens, "completion_tokens": self.completion_tokens,
                "total_tokens": self.total_tokens}


class _Retryable(Exception):
    def __init__(self, reason: str, retry_after: float | None = None) -> None:
        super().__init__(reason)
        self.retry_after = retry_after


class LLMClient:
    def __init__(self, settings: Settings, emit: EventSink | None = None,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.settings = settings
        self.emit = emit or (lambda _e: None)
        self.usage = SessionUsage()
        self.dropped_params: set[str] = set()
        self._seen_ids: set[str] = set()
        self.extra_params: dict[str, Any] = {}   # e.g. ``stop`` for the text tool protocol
        self._sleep = sleep
        self._client: Any = None

    # -- client --------------------------------------------------------------------------------
    def _get_client(self) -> Any:
        if self._client is None:
            s = self.settings
            key = s.api_key
            if not key:
                if endpoint_needs_key(s.base_url):
                    raise ConfigError(f"no API key for {s.base_url or 'api.openai.com'}: {KEYLESS_HINT}")
                key = "not-needed"
            import openai  # heavy: imported only when a request is made

            self._client = openai.OpenAI(api_key=key, base_url=s.base_url or None,
                                         timeout=s.request_timeout, max_retries=0)
        return self._client

    # -- one request, with retries -------------------------------------------------------------
    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                 on_text: Callable[[str], None] | None = None,
                 on_reasoning: Callable[[str], None] | None = None) -> AssistantTurn:
        attempts = self.settings.max_attempts
        attempt = 0
        while True:
            attempt += 1
            try:
                turn = self._stream_once(messages, tools, on_text, on_reasoning)
                self.usage.add(turn)
                return turn
            except _Retryable as e:
                if attempt >= attempts:
                    raise LLMError(f"model request failed after {attempt} attempts: {e}") from None
                delay = self._delay(attempt, e.retry_after)
                self.emit(Retrying(attempt=attempt, max_attempts=attempts, delay_s=round(delay, 2),
                                   reason=str(e)))
                log.info("retrying in %.2fs after: %s", delay, e)
                self._sleep(delay)

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), 120.0)
        base = self.settings.retry_base_delay * (2 ** (attempt - 1))
        return min(base, 30.0) * (0.5 + random.random() / 2)

    def request_params(self, messages: list[dict[str, Any]],
                       tools: list[dict[str, Any]] | None) -> dict[str, Any]:
        s = self.settings
        params: dict[str, Any] = {"model": s.model, "messages": messages, "stream": True,
                                  "stream_options": {"include_usage": True}}
        if tools:
            params["tools"] = tools
            params["tool_choice"] = "auto"
        if s.temperature is not None:
            params["temperature"] = s.temperature
        if s.max_tokens is not None:
            params["max_tokens"] = s.max_tokens
        params.update(self.extra_params)
        for name in self.dropped_params:
            params.pop(name, None)
        return params

    def _stream_once(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None,
                     on_text: Callable[[str], None] | None,
                     on_reasoning: Callable[[str], None] | None) -> AssistantTurn:
        import openai

        client = self._get_client()
        params = self.request_params(messages, tools)
        try:
            stream = client.chat.completions.create(**_untransformed(params))
        except openai.APIStatusError as e:
            if self._drop_unsupported_param(e, params):
                return self._stream_once(messages, tools, on_text, on_reasoning)
            raise self._status_error(e) from None
        except openai.APITimeoutError:
            raise _Retryable("request timed out") from None
        except openai.APIConnectionError as e:
            raise _Retryable(f"cannot connect to {self.settings.base_url or 'api.openai.com'} "
                             f"({_cause(e)})") from None
        try:
            return self._assemble(stream, on_text, on_reasoning)
        except openai.APIError as e:
            raise _Retryable(f"stream error: {e}") from None
        except Exception as e:
            if _is_transport_error(e):
                raise _Retryable(f"stream broke off: {type(e).__name__}: {e}") from None
            raise
        finally:
            try:
                stream.close()
            except Exception:
                pass

    def _assemble(self, stream: Any, on_text: Callable[[str], None] | None,
                  on_reasoning: Callable[[str], None] | None) -> AssistantTurn:
        turn = AssistantTurn()
        parts: list[str] = []
        calls: dict[int, dict[str, Any]] = {}
        for chunk in stream:
            usage = getattr(chunk, "usage", None)
            if usage is not None:
                turn.prompt_tokens = getattr(usage, "prompt_tokens", 0) or 0
                turn.completion_tokens = getattr(usage, "completion_tokens", 0) or 0
            for choice in chunk.choices or []:
                delta = choice.delta
                if delta is not None:
                    reasoning = _extra(delta, "reasoning_content") or _extra(delta, "reasoning")
                    if reasoning and isinstance(reasoning, str):
                        turn.reasoning += reasoning
                        if on_reasoning:
                            on_reasoning(reasoning)
                    if delta.content:
                        parts.append(delta.content)
                        if on_text:
                            on_text(delta.content)
                    for tc in delta.tool_calls or []:
                        slot = calls.setdefault(tc.index if tc.index is not None else len(calls),
                                                {"id": "", "name": "", "arguments": []})
                        if tc.id:
                            slot["id"] = tc.id
                        if tc.function is not None:
                            if tc.function.name:
                                slot["name"] += tc.function.name
                            if tc.function.arguments:
                                slot["arguments"].append(tc.function.arguments)
                if choice.finish_reason:
                    turn.finish_reason = choice.finish_reason
        if turn.finish_reason is None:
            raise _Retryable("the stream ended without a finish_reason (cut off)")
        turn.content = "".join(parts)
        for index in sorted(calls):
            slot = calls[index]
            turn.tool_calls.append(ToolCall(id=self.unique_call_id(slot["id"]), name=slot["name"],
                                            arguments="".join(slot["arguments"])))
        return turn

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
        message = _api_message(e)
        if status in RETRY_STATUS:
            return _Retryable(f"HTTP {status}: {message}", _retry_after(e.response.headers))
        if status == 401:
            return LLMError(f"the endpoint rejected the API key (HTTP 401: {message}); "
                            "set OPENAI_API_KEY to a valid key")
        if status == 404:
            return LLMError(f"HTTP 404 from the endpoint: {message} (check --model "
                            f"'{self.settings.model}' and --base-url)")
        low = message.lower()
        if status in (400, 413) and any(w in low for w in _CONTEXT_WORDS):
            return ContextTooLong(f"the request is longer than the model's context (HTTP {status}: {message})")
        return LLMError(f"HTTP {status} from the endpoint: {message}")

    def _drop_unsupported_param(self, e: Any, params: dict[str, Any]) -> bool:
        """A 4xx/5xx naming an optional parameter: retry once without it, and remember."""
        if e.status_code < 400:
            return False
        text = _api_message(e).lower()
        names = [n for n in OPTIONAL_PARAMS if n in params and n not in self.dropped_params]
        named = [n for n in names if n in text]
        if not named and _empty_error(text) and "tool_choice" in names:
            # llama.cpp-style servers answer a tool_choice they cannot honour with a bare 500; without
            # it the request means the same ("auto" is the default when tools are sent).
            named = ["tool_choice"]
        if not named:
            return False
        name = named[0]
        self.dropped_params.add(name)
        log.info("endpoint rejected %s (HTTP %s: %s); retrying without it", name, e.status_code, text[:100])
        from axon_cli.events import Notice

        self.emit(Notice(message=f"the endpoint does not support '{name}'; continuing without it"))
        return True


def _empty_error(message: str) -> bool:
    """An error response without any explanation (empty body, ``{}``, ``null``)."""
    text = message.strip().strip('"').lower()
    return text in ("", "{}", "null", "[]", "internal server error") or text.startswith("error code: ")


def _untransformed(params: dict[str, Any]) -> dict[str, Any]:
    """Send messages and tools as they are: they are already plain API-shaped dicts, and the SDK's
    per-request transform walks every message (tens of ms at a few hundred messages)."""
    raw = {k: params[k] for k in ("messages", "tools") if k in params}
    rest = {k: v for k, v in params.items() if k not in raw}
    return {**rest, "messages": [], "extra_body": raw}


def _extra(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    if value is None:
        extra = getattr(obj, "model_extra", None) or {}
        value = extra.get(name)
    return value


def _api_message(e: Any) -> str:
    body = getattr(e, "body", None)
    if isinstance(body, dict):
        err = body.get("error", body)
        if isinstance(err, dict) and err.get("message"):
            return str(err["message"])[:300]
        if isinstance(err, str):
            return err[:300]
    try:
        text = e.response.text
        if text:
            try:
                data = json.loads(text)
                if isinstance(data, dict):
                    err = data.get("error", data)
                    if isinstance(err, dict) and err.get("message"):
                        return str(err["message"])[:300]
            except ValueError:
                pass
            return text.strip().splitlines()[0][:300]
    except Exception:
        pass
    return str(getattr(e, "message", e))[:300]


def _retry_after(headers: Any) -> float | None:
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def _cause(e: BaseException) -> str:
    inner = e.__cause__ or e.__context__
    return str(inner or e).splitlines()[0][:200] if (inner or e) else type(e).__name__


def _is_transport_error(e: BaseException) -> bool:
    mod = type(e).__module__
    return mod.startswith(("httpx", "httpcore", "h11")) or isinstance(e, (ConnectionError, TimeoutError))
