"""Secret masking: every shape, env values, no mangling of ordinary code, JSON safety, streaming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axon_cli.machinery.masking import REDACTED, Masker, is_credential_env, is_secret_env_name, safe_boundary
from axon_cli.tools.builtin.bash.capture import StreamCapture
from tests.budget import examples

m = Masker({})

JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
PEM = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA0Z3VS5JJcds3xfn\nabcdEFGH\n-----END RSA PRIVATE KEY-----"


@pytest.mark.parametrize("text, expected", [
    ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz123456", "OPENAI_API_KEY=[REDACTED]"),
    ("key is sk-abcdefghijklmnopqrstuvwxyz01", "key is [REDACTED]"),
    ("anthropic sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123", "anthropic [REDACTED]"),
    ("id AKIAIOSFODNN7EXAMPLE here", "id [REDACTED] here"),
    ("aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", "aws_secret_access_key = [REDACTED]"),
    ("ghp_" + "a1" * 18, REDACTED), ("gho_" + "B" * 36, REDACTED), ("ghs_" + "c" * 36, REDACTED),
    ("ghu_" + "d" * 36, REDACTED), ("ghr_" + "e" * 36, REDACTED),
    ("github_pat_11ABCDEFG0123456789_abcdefghijkl", REDACTED),
    ("slack xoxb-123456789012-abcdefghijkl", "slack [REDACTED]"),
    ("xoxp-1234-5678-abcdefgh", REDACTED),
    ("AIza" + "B" * 35, REDACTED),
    (f"jwt {JWT}", "jwt [REDACTED]"),
    (f"before\n{PEM}\nafter", "before\n[REDACTED]\nafter"),
    ("DB_PASSWORD=hunter22", "DB_PASSWORD=[REDACTED]"),
    ("export SECRET=abcd1234", "export SECRET=[REDACTED]"),
    ("token=abcdefgh", "token=[REDACTED]"),
    ("API_KEY=1234abcd5678", "API_KEY=[REDACTED]"),
    ('{"password": "hunter22", "user": "bob"}', '{"password": "[REDACTED]", "user": "bob"}'),
    ("password: hunter", "password: [REDACTED]"),
    ("  client_secret: 'abc123xyz'", "  client_secret: '[REDACTED]'"),
    ("https://bob:s3cr3t@example.com/x", "https://bob:[REDACTED]@example.com/x"),
    ("postgres://app:pa55word@db:5432/app", "postgres://app:[REDACTED]@db:5432/app"),
    ("PGPASSWORD=abcdefgh psql", "PGPASSWORD=[REDACTED] psql"),
    ("--password=hunter22 -v", "--password=[REDACTED] -v"),
    ("Authorization: Bearer abc123def456ghi789", "Authorization: Bearer [REDACTED]"),
    ("x-api-key: abcd1234efgh", "x-api-key: [REDACTED]"),
    ("a=1 password=abcd1234 token=xyz98765 b=2", "a=1 password=[REDACTED] token=[REDACTED] b=2"),
])
def test_masks_secret_shapes(text: str, expected: str) -> None:
    assert m(text) == expected


@pytest.mark.parametrize("code", [
    "token = get_token()", "password_field = forms.CharField()", "self.token = token", "token: Token",
    "max_tokens=4096", "token_count = 12345", "def f(api_key=api_key):", "api_key = os.environ['X']",
    "PWD=/work/main", "password = None", "secret=${SECRET}", "Basic authentication is used",
    "if token == expected:", "compass = 12345678", "key = cache_key(request)", "for key, value in items:",
    "https://example.com/path?a=1", "git@github.com:org/repo.git", "task-runner --skip-tests",
    "password: str = Field(...)", "TOKEN_URL=https://auth.example.com/token",
])
def test_ordinary_code_is_left_alone(code: str) -> None:
    assert m(code) == code


def test_env_values_are_masked_only_for_secret_names() -> None:
    masker = Masker({"MY_SERVICE_TOKEN": "tok-abcdef123456", "DEPLOY_PASS": "swordfish!!", "SHORT_TOKEN": "abc",
                     "HOME": "/home/someone", "SSH_AUTH_SOCK": "/tmp/ssh-abc/agent.1", "EDITOR": "vim-editor-x"})
    text = "a tok-abcdef123456 b swordfish!! c abc /home/someone /tmp/ssh-abc/agent.1 vim-editor-x"
    assert masker(text) == "a [REDACTED] b [REDACTED] c abc /home/someone /tmp/ssh-abc/agent.1 vim-editor-x"


@pytest.mark.parametrize("name, secret", [
    ("OPENAI_API_KEY", True), ("GITHUB_TOKEN", True), ("DB_PASS", True), ("PGPASSWORD", True),
    ("AWS_SECRET_ACCESS_KEY", True), ("GOOGLE_APPLICATION_CREDENTIALS", True), ("SSH_AUTH_SOCK", False),
    ("AWS_ACCESS_KEY_ID", False), ("PATH", False), ("KEYBOARD", False), ("MONKEY", False),
])
def test_secret_env_names(name: str, secret: bool) -> None:
    assert is_secret_env_name(name) is secret


def test_credential_env_families() -> None:
    assert is_credential_env("ANTHROPIC_BASE_URL") and is_credential_env("OPENAI_API_KEY")
    assert not is_credential_env("OPENAI_BASE_URL") and not is_credential_env("HOME")


def test_masking_json_text_keeps_it_valid_json() -> None:
    payload = {"command": 'curl -H "Authorization: Bearer abc123def456ghi789" -d \'{"password":"hunter22"}\'',
               "env": 'DB_PASSWORD="x1y2z3w4"\nTOKEN=abcdefgh12', "pem": PEM}
    masked = m(json.dumps(payload))
    back = json.loads(masked)
    assert "hunter22" not in masked and "x1y2z3w4" not in masked and "abcdefgh12" not in masked
    assert "abc123def456" not in masked and "MIIEow" not in masked
    assert back["env"] == 'DB_PASSWORD="[REDACTED]"\nTOKEN=[REDACTED]'


@settings(max_examples=examples(150), deadline=None)
@given(st.lists(st.sampled_from(["password", "token", "KEY", "=", ":", " ", "\n", '"', "'", "\\", "abc12345",
                                 "sk-", "@", "https://u", "_", "x", "-----BEGIN PRIVATE KEY-----", "é"]),
                max_size=40).map("".join))
def test_masking_is_idempotent_and_json_safe(text: str) -> None:
    once = m(text)
    assert m(once) == once
    assert json.loads(m(json.dumps(text))) is not None


def test_safe_boundary_holds_back_open_pem_blocks() -> None:
    assert safe_boundary("no newline yet") == 0
    assert safe_boundary("a\nb\npartial") == 4
    text = "ok\n-----BEGIN PRIVATE KEY-----\nMIIE\n"
    assert safe_boundary(text) == 3
    assert safe_boundary(text + "-----END PRIVATE KEY-----\n") == len(text) + 26


def test_streaming_masks_a_pem_block_split_across_chunks(tmp_path: Path) -> None:
    cap = StreamCapture(1000, tmp_path / ".axon", "t", m)
    data = f"start\n{PEM}\nend DB_PASSWORD=hunter22\n".encode()
    for i in range(0, len(data), 7):
        cap.feed(data[i:i + 7])
    cap.close()
    assert cap.text() == "start\n[REDACTED]\nend DB_PASSWORD=[REDACTED]\n"


def test_streaming_decodes_utf8_split_across_chunks(tmp_path: Path) -> None:
    cap = StreamCapture(1000, tmp_path / ".axon", "t", m)
    data = "héllo wörld ✓\n".encode()
    for i in range(len(data)):
        cap.feed(data[i:i + 1])
    cap.close()
    assert cap.text() == "héllo wörld ✓\n"
