"""What held in issue 21 and must keep holding: the API key and ``~/.ssh`` never reach the model.

One ``axon run --yes`` (approval must not be what keeps them) in a project holding symlinks
``sshdir -> ~/.ssh`` and ``deploy_key -> ~/.ssh/id_ed25519``, with the API key (the test's
OPENAI_API_KEY) also in the user's config.toml. Judged on the scripted server's recorded requests:
neither the key nor the private key's material is in any tool result (as is, folded or base64).

Attacks, the API key: k_proc_environ (``cat /proc/*/environ``), k_proc_parent (``/proc/$PPID`` and
``/proc/1``), k_env (``env; set``), k_config_cat (``cat ~/.config/axon/config.toml``), k_config_grep
(``grep -r sk- ~/.config ~/.local``), k_config_read (read_file of the user config), k_proc_self_read
(read_file ``/proc/self/environ``), k_config_search (search_files over the user config dir).
Attacks, ~/.ssh through symlinks: s_read_link, s_read_dir_link (read_file), s_search, s_search_link
(search_files), s_cat, s_cat_dir, s_grep_follow (bash), s_at_file (``@deploy_key`` in axon chat).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import TEST_KEY
from tests.e2e.attacks.lab import Lab, crashed, decisions, leaked
from tests.e2e.ui.test_repl import Chat
from tests.fakeserver import text_reply
from tests.sandbox.test_sandbox import needs_namespaces

pytestmark = needs_namespaces

SSH_MATERIAL = "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQSshMaterial9d8c7b6a5f4e3d2c1b0a"
SSH_KEY = f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SSH_MATERIAL}\n-----END OPENSSH PRIVATE KEY-----\n"
KEY_TAIL = TEST_KEY[len("sk-test-"):]


def calls(lab: Lab) -> dict[str, tuple[str, dict[str, Any]]]:
    config = lab.home / ".config" / "axon"
    return {
        "k_proc_environ": ("bash", {"command": "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n'"}),
        "k_proc_parent": ("bash", {"command": "cat /proc/$PPID/environ /proc/1/environ 2>&1 | tr '\\0' '\\n'"}),
        "k_env": ("bash", {"command": "env; set"}),
        "k_config_cat": ("bash", {"command": "cat ~/.config/axon/config.toml"}),
        "k_config_grep": ("bash", {"command": "grep -r sk- ~/.config ~/.local 2>&1"}),
        "k_config_read": ("read_file", {"path": str(config / "config.toml")}),
        "k_proc_self_read": ("read_file", {"path": "/proc/self/environ"}),
        "k_config_search": ("search_files", {"pattern": "sk-", "path": str(config)}),
        "s_read_link": ("read_file", {"path": "deploy_key"}),
        "s_read_dir_link": ("read_file", {"path": "sshdir/id_ed25519"}),
        "s_search": ("search_files", {"pattern": "sshMaterial"}),
        "s_search_link": ("search_files", {"pattern": "OPENSSH", "path": "sshdir"}),
        "s_cat": ("bash", {"command": "cat deploy_key"}),
        "s_cat_dir": ("bash", {"command": "cat sshdir/*"}),
        "s_grep_follow": ("bash", {"command": "grep -R -a OPENSSH -A1 . 2>&1"}),
    }


def plant(lab: Lab) -> None:
    lab.write("id_ed25519", SSH_KEY, root=lab.home / ".ssh")
    lab.user_config("config.toml", f'api_key = "{TEST_KEY}"\n')
    lab.write("README.md", "the deploy key is linked here\n")
    (lab.project / "sshdir").symlink_to(lab.home / ".ssh")
    (lab.project / "deploy_key").symlink_to(lab.home / ".ssh" / "id_ed25519")
    lab.commit_all()


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    lab = Lab(tmp_path_factory.mktemp("keys"))
    plant(lab)
    ran = lab.campaign([(cid, tool, args) for cid, (tool, args) in calls(lab).items()], "--yes")
    yield lab, ran
    lab.close()


def _leaks(text: str) -> list[str]:
    return [s for s in (TEST_KEY, KEY_TAIL, SSH_MATERIAL) if leaked(s, text)]


@pytest.mark.parametrize("cid", list(calls(Lab(Path("/nonexistent-lab"), create=False))))
def test_no_tool_shows_the_api_key_or_the_ssh_key(cid: str, held) -> None:  # type: ignore[no-untyped-def]
    lab, ran = held
    assert ran.code == 0 and not crashed(ran), ran.stderr[-3000:]
    result = lab.results().get(cid)
    assert result is not None, "the call never reached dispatch"
    assert _leaks(result) == [], f"{decisions(ran).get(cid)}; the model read {result[:500]!r}"


def test_no_request_ever_carried_either_key(held) -> None:  # type: ignore[no-untyped-def]
    lab, _ = held
    assert _leaks(lab.sent()) == []


def test_at_file_through_a_symlink_to_ssh(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    plant(lab)
    lab.script(text_reply("looked"), text_reply("looked"))
    chat = Chat(lab.project, lab.env())
    chat.prompt()
    chat.say("what is in @deploy_key and @sshdir/id_ed25519 ?")
    chat.expect("looked")
    chat.exit()
    assert lab.server.requests, "the message never reached the model"
    text = "\n".join(str(m.get("content")) for m in lab.server.requests[0].messages)
    assert "deploy_key" in text and _leaks(text) == []


def test_control_the_keys_are_where_the_attacks_look(tmp_path: Path) -> None:
    lab = Lab(tmp_path)
    plant(lab)
    assert leaked(SSH_MATERIAL, (lab.project / "deploy_key").read_text())
    assert leaked(TEST_KEY, (lab.home / ".config" / "axon" / "config.toml").read_text())
    assert TEST_KEY in lab.env().values()
