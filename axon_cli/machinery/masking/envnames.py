"""Which environment variables hold secrets, and the values of those that do (masked literally)."""

from __future__ import annotations

import re
from collections.abc import Mapping

__all__ = ["is_secret_env_name", "is_credential_env", "env_secret_values"]

_SECRET_NAME = re.compile(
    r"(?i)(?:^|_)(?:API_?KEY|KEY|KEYS|TOKEN|TOKENS|SECRET|SECRETS|PASSWORD|PASSWD|PASS|PASSPHRASE|"
    r"CREDENTIALS?|AUTH|PRIVATE_KEY|SESSION_TOKEN)(?:_|$)|APIKEY|PASSWORD|SECRET|TOKEN|CREDENTIAL")
_NOT_SECRET_NAME = re.compile(
    r"(?i)(?:_(?:SOCK|FILE|PATH|DIR|DIRS|HOME|ID|TYPE|NAME|KIND|MODE|HOST|PORT|REGION|URL|ENDPOINT|"
    r"LENGTH|SIZE|TIMEOUT)$|^(?:SSH_AUTH_SOCK|XAUTHORITY|GPG_AGENT_INFO|KEYTIMEOUT)$)")
# Named like no secret above, and still one to a child process: request headers (``OTEL_EXPORTER_OTLP_HEADERS``
# holds the collector's token), cookies, auth words (not ``AUTHOR``: ``GIT_AUTHOR_NAME``), bearer
# tokens, personal access tokens, short password names.
_CHILD_SECRET_NAME = re.compile(
    r"(?i)HEADERS?(?:_|$)|COOKIES?(?:_|$)|(?:^|_)AUTH(?!OR(?:_|$|S))|BEARER|(?:^|_)PAT(?:_|$)|_PWD$|(?:^|_)CREDS?(?:_|$)")
_SECRET_PREFIXES = ("OPENAI_API_KEY", "ANTHROPIC_", "AWS_SECRET", "AWS_SESSION_TOKEN", "AZURE_OPENAI_API_KEY",
                    "GOOGLE_API_KEY", "GEMINI_API_KEY", "GROQ_API_KEY", "MISTRAL_API_KEY",
                    "OPENROUTER_API_KEY", "DEEPSEEK_API_KEY", "HF_TOKEN", "HUGGING_FACE_HUB_TOKEN")


def is_secret_env_name(name: str) -> bool:
    """Whether an environment variable's name says it holds a secret (``OPENAI_API_KEY``, ``DB_PASS``)."""
    return bool(_SECRET_NAME.search(name)) and not _NOT_SECRET_NAME.search(name)


def is_credential_env(name: str) -> bool:
    """Whether a variable must not reach commands axon runs: secret-looking, a provider credential
    family (``ANTHROPIC_*``, ``AWS_SECRET*``, ...), or a header, cookie or auth setting
    (``OTEL_EXPORTER_OTLP_HEADERS``, ``NPM_CONFIG__AUTH``)."""
    if is_secret_env_name(name) or name.upper().startswith(_SECRET_PREFIXES):
        return True
    return bool(_CHILD_SECRET_NAME.search(name)) and not _NOT_SECRET_NAME.search(name)


def env_secret_values(env: Mapping[str, str]) -> list[str]:
    """The values to mask wherever they appear: secret-named variables' values, longest first."""
    values = set()
    for name, value in env.items():
        value = value.strip()
        if len(value) < 8 or not is_secret_env_name(name):
            continue
        if value.startswith(("/", "~", "./")) or value.isdigit() or value.lower() in ("true", "false"):
            continue
        values.add(value)
    return sorted(values, key=len, reverse=True)
