"""One test per masking rule: its sample (a realistic line) is masked by that rule alone and by the
full table; look-alikes (UUIDs, git SHAs, base64 of prose, hex dumps, placeholders) are not."""

from __future__ import annotations

import random
import re
import string

import pytest

from axon_cli.machinery.masking import REDACTED, RULES, Masker, Rule

_CLASSES = {"a": string.ascii_letters + string.digits, "l": string.ascii_lowercase + string.digits,
            "U": string.ascii_uppercase + string.digits, "h": "0123456789abcdef", "H": "0123456789ABCDEF",
            "d": string.digits, "b": string.ascii_letters + string.digits + "+/",
            "w": string.ascii_letters + string.digits + "_-", "m": string.ascii_letters,
            "B": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", "Z": string.ascii_uppercase + "234567"}
_PLACEHOLDER = re.compile(r"\{([alUhHdbwmBZ])(\d+)\}")
FULL = Masker({})


def expand(rule: Rule) -> tuple[str, list[str]]:
    """The sample with its placeholders filled (seeded by the rule id) and the random parts."""
    rnd = random.Random(rule.id)
    parts: list[str] = []

    def fill(m: re.Match[str]) -> str:
        part = "".join(rnd.choice(_CLASSES[m.group(1)]) for _ in range(int(m.group(2))))
        parts.append(part)
        return part

    return _PLACEHOLDER.sub(fill, rule.sample), [p for p in parts if len(p) >= 8]


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_masks_its_sample(rule: Rule) -> None:
    line, secrets = expand(rule)
    assert secrets, f"{rule.id}: the sample needs a secret part"
    longest = max(secrets, key=len)                 # the secret part (ids beside it may stay)
    alone = Masker({}, rules=[rule])(line)
    assert REDACTED in alone and longest not in alone, f"{rule.id} did not mask {line!r}: {alone!r}"
    full = FULL(line)
    assert longest not in full, full
    assert FULL(full) == full                       # idempotent


@pytest.mark.parametrize("rule", RULES, ids=[r.id for r in RULES])
def test_rule_anchors_occur_in_what_it_masks(rule: Rule) -> None:
    line, _ = expand(rule)
    assert any((a in line.lower()) if a == a.lower() else (a in line) for a in rule.anchors), rule.id


LOOK_ALIKES = [
    "request id 550e8400-e29b-41d4-a716-446655440000 finished",
    "commit 3f2a9c1d7e5b4a6f8091a2b3c4d5e6f708192a3b (HEAD -> main)",
    "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "U29tZSBvcmRpbmFyeSB0ZXh0IGVuY29kZWQgYXMgYmFzZTY0IGZvciBhIHRlc3Q=",
    "0000: 4c6f 7265 6d20 6970 7375 6d20 646f 6c6f 7220 7369 7420 616d 6574  Lorem ipsum dolor sit amet",
    "deadbeefcafebabe0123456789abcdef0123456789abcdef",
    'password = "********"', "token: <YOUR_TOKEN>", "api_key = os.environ['API_KEY']", "secret=${SECRET}",
    "Basic authentication is used", "heroku apps:info --app my-app", "mailchimp campaign sent to 42 users",
    "task SKIPPED: disk check", "See https://docs.stripe.com/keys for sk_live_ keys", "age: 42",
    "npm_config_cache=/home/u/.npm", "DB_PASSWORD=changeme", "MY_AUTH=enabled-everywhere", "SG. is the prefix of SendGrid keys", "AccountKey=<your key>",
    "the quick brown fox jumps over the lazy dog; build step ok [100%]",
    "docker pull python:3.11-slim@sha256:1d8c6ddb6f4a4ef0f8b6b1a1d3e0b5a7c9e2f4a6b8c0d2e4f6a8b0c2d4e6f8a0",
]


@pytest.mark.parametrize("text", LOOK_ALIKES)
def test_look_alikes_are_left_alone(text: str) -> None:
    assert FULL(text) == text


@pytest.mark.parametrize("text, secret", [
    ("//registry.npmjs.org/:_authToken=npm_" + "Z9y8X7w6" * 4 + "Abcd", "npm_" + "Z9y8X7w6" * 4 + "Abcd"),
    ("SENDGRID_API=SG." + "Qx" * 11 + "." + "Wv3" * 14 + "T", "SG." + "Qx" * 11),
    ("DefaultEndpointsProtocol=https;AccountName=prod;AccountKey=" + "Tm90QVJlYWxLZXk" * 6 + "AAA==;EndpointSuffix=core.windows.net",
     "Tm90QVJlYWxLZXk" * 6),
])
def test_the_three_that_used_to_escape(text: str, secret: str) -> None:
    assert secret not in FULL(text) and REDACTED in FULL(text)
