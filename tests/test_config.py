"""Config: precedence with sources, and one clear line for every mistake."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from axon_cli.kernel.errors import ConfigError
from axon_cli.settings.config import Settings, load_settings, read_toml

ROOT = Path(__file__).resolve().parents[1]


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture
def layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    xdg = tmp_path / "xdg"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    project = tmp_path / "proj"
    project.mkdir()
    return xdg / "axon" / "config.toml", project


def test_defaults_with_no_files(layers):
    _, project = layers
    loaded = load_settings(project, env={})
    assert loaded.settings == Settings()
    assert loaded.source("model") == "default"


def test_precedence_flags_env_project_user(layers):
    user, project = layers
    write(user, 'model = "user-model"\nmax_turns = 7\nmax_attempts = 2\n')
    proj = write(project / ".axon" / "config.toml", 'model = "project-model"\nmax_turns = 9\n')
    loaded = load_settings(project, env={}, flags={})
    assert loaded.settings.model == "project-model" and loaded.source("model") == str(proj)
    assert loaded.settings.max_attempts == 2 and loaded.source("max_attempts") == str(user)
    loaded = load_settings(project, env={"AXON_MODEL": "env-model"})
    assert loaded.settings.model == "env-model" and loaded.source("model") == "env AXON_MODEL"
    loaded = load_settings(project, env={"AXON_MODEL": "env-model"}, flags={"model": "flag-model"})
    assert loaded.settings.model == "flag-model" and loaded.source("model") == "flag --model"
    assert loaded.settings.max_turns == 9


def test_unknown_key_names_file_and_key(layers):
    _, project = layers
    path = write(project / ".axon" / "config.toml", 'modle = "x"\n')
    with pytest.raises(ConfigError) as e:
        load_settings(project, env={})
    assert str(path) in str(e.value) and "unknown key 'modle'" in str(e.value)
    assert "\n" not in str(e.value)


def test_wrong_type_names_key_and_expectation(layers):
    user, project = layers
    write(user, 'max_turns = "many"\n')
    with pytest.raises(ConfigError) as e:
        load_settings(project, env={})
    msg = str(e.value)
    assert str(user) in msg and "'max_turns'" in msg and "integer" in msg and "'many'" in msg


def test_nested_unknown_key(layers):
    _, project = layers
    write(project / ".axon" / "config.toml", '[prices.gpt]\ninput = 1\noutput = 2\ncurrency = "eur"\n')
    with pytest.raises(ConfigError, match=r"unknown key 'prices.gpt.currency'"):
        load_settings(project, env={})


def test_invalid_toml_is_one_line(layers):
    _, project = layers
    write(project / ".axon" / "config.toml", "model = \n")
    with pytest.raises(ConfigError, match="invalid TOML"):
        load_settings(project, env={})


def test_bad_flag_value_names_flag(layers):
    _, project = layers
    with pytest.raises(ConfigError, match="flag --mode"):
        load_settings(project, env={}, flags={"mode": "reckless"})


def test_example_documents_every_key_with_its_default():
    text = (ROOT / "config.example.toml").read_text()
    example = read_toml(ROOT / "config.example.toml")
    defaults = Settings().model_dump()
    for key, default in defaults.items():
        assert re.search(rf"^#? ?{key} = ", text, re.M) or f"[{key}]" in text, f"{key} undocumented"
        if key in example and not isinstance(default, dict):
            assert example[key] == default, f"{key}: example says {example[key]!r}, default is {default!r}"
    assert set(example) <= set(defaults)
    Settings.model_validate(example)


def test_help_does_not_import_heavy_modules():
    import subprocess

    code = ("import sys; sys.argv=['axon','--help']\n"
            "try:\n    from axon_cli.app.entry.cli import main; main()\nexcept SystemExit: pass\n"
            "heavy=[m for m in ('openai','rich.live','prompt_toolkit','bashlex','axon_cli.agent.loop.agent','pydantic') "
            "if m in sys.modules]\nprint('HEAVY', heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60).stdout
    assert "HEAVY []" in out, out


def test_unknown_key_suggests_the_closest(layers):
    _, project = layers
    write(project / ".axon" / "config.toml", 'max_turn = 3\n')
    with pytest.raises(ConfigError, match=r"unknown key 'max_turn'; did you mean 'max_turns'\?"):
        load_settings(project, env={})
