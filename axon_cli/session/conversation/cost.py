"""Usage and cost: tokens per request and per session, priced from ``settings.prices``.

``prices`` maps a model name to USD per million prompt (input) and completion (output) tokens.
A model is priced by its exact name, else by the longest configured name it starts with
(``gpt-4o-mini-2024-07-18`` uses ``gpt-4o-mini``). Tokens of an unknown model make the cost
unknown (None): axon never shows a made-up price. So does a request whose server reported no usage
(a stream without its usage chunk): its tokens are unknown, not 0, and so is any sum with them.
"""

from __future__ import annotations

from dataclasses import dataclass

from axon_cli.agent.model.llm import SessionUsage
from axon_cli.settings.config import Price, Settings

__all__ = ["price_for", "CostMeter", "format_usd", "format_tokens"]


def price_for(settings: Settings, model: str | None = None) -> Price | None:
    name = (model or settings.model).lower()
    prices = {k.lower(): v for k, v in settings.prices.items()}
    if name in prices:
        return prices[name]
    prefixes = [k for k in prices if name.startswith(k)]
    return prices[max(prefixes, key=len)] if prefixes else None


def format_usd(value: float) -> str:
    return f"${value:.4f}" if value < 1 else f"${value:,.2f}"


def format_tokens(n: int) -> str:
    return f"{n / 1000:.1f}k" if n >= 10_000 else f"{n:,}"


@dataclass
class CostMeter:
    """Prices each request's tokens with the model in use when it was made (models may switch)."""

    settings: Settings
    usd: float = 0.0
    unpriced_tokens: int = 0
    _seen_prompt: int = 0
    _seen_completion: int = 0
    base_prompt: int = 0          # tokens of earlier runs of a resumed session (not priced again)
    base_completion: int = 0
    unreported: int = 0           # requests whose server sent no usage

    def update(self, usage: SessionUsage) -> float | None:
        """Account for tokens added to ``usage`` since the last call; the cost so far, or None."""
        prompt = usage.prompt_tokens - self._seen_prompt
        completion = usage.completion_tokens - self._seen_completion
        self._seen_prompt, self._seen_completion = usage.prompt_tokens, usage.completion_tokens
        self.unreported = usage.unreported
        if prompt or completion:
            price = price_for(self.settings)
            if price is None:
                self.unpriced_tokens += prompt + completion
            else:
                self.usd += (prompt * price.input + completion * price.output) / 1_000_000
        return self.cost()

    def cost(self) -> float | None:
        return None if self.unpriced_tokens or self.unreported else self.usd

    def text(self, usage: SessionUsage) -> str:
        """The ``/cost`` report: this run's requests and tokens, the session's, and the cost if priced."""
        self.update(usage)
        if usage.unreported:
            return "\n".join(_unreported_lines(usage, self.settings.model))
        lines = [f"requests: {usage.requests}, tokens: {format_tokens(usage.prompt_tokens)} in, "
                 f"{format_tokens(usage.completion_tokens)} out (last prompt "
                 f"{format_tokens(usage.last_prompt_tokens)})"]
        if self.base_prompt or self.base_completion:
            lines.append(f"session total (with earlier runs): "
                         f"{format_tokens(self.base_prompt + usage.prompt_tokens)} in, "
                         f"{format_tokens(self.base_completion + usage.completion_tokens)} out")
        cost = self.cost()
        if cost is not None:
            lines.append(f"cost: {format_usd(cost)} ({self.settings.model})")
        elif self.usd:
            lines.append(f"cost: at least {format_usd(self.usd)} ({format_tokens(self.unpriced_tokens)} "
                         "tokens of models without a price)")
        else:
            lines.append(f"cost: unknown (no price for '{self.settings.model}'; add [prices] to config.toml)")
        return "\n".join(lines)


def _unreported_lines(usage: SessionUsage, model: str) -> list[str]:
    """``/cost`` when the server did not report the usage of some requests: unknown, never 0."""
    if usage.unreported == usage.requests:
        said = "the endpoint did not report usage"
    else:
        said = (f"the endpoint reported usage for {usage.requests - usage.unreported} of them "
                f"({format_tokens(usage.prompt_tokens)} in, {format_tokens(usage.completion_tokens)} out)")
    return [f"requests: {usage.requests}, tokens: unknown ({said})",
            f"cost: unknown (the token counts of {model} are unknown)"]
