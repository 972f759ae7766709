"""The runtime permission policy: rules from the files, the mode, and path resolution around ``decide``.

Mode precedence (documented in the README): ``--mode`` flag > ``mode`` in the project's
``.axon/permissions.toml`` > ``mode`` in the user's ``permissions.toml`` > ``mode`` in config.toml
(project, then user) > ``default``. The mode in force is the policy's ``current`` (``CurrentMode``, its one
owner); ``/mode``, Shift-Tab, plan approval, ACP and resume change it through ``set_mode``.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from axon_cli.kernel.errors import AxonError, ConfigError
from axon_cli.policy.base import Decision, KnownFacts, ToolFacts
from axon_cli.policy.decide import decide
from axon_cli.policy.decision_context import DISK
from axon_cli.policy.modes import CurrentMode
from axon_cli.policy.paths import fs_resolver
from axon_cli.policy.rules import Rule, RuleSet, load_rules, parse_rule
from axon_cli.settings.trust.folder import FolderTrust
from axon_cli.settings.trust.widening import PERMISSIONS, allow_item

if TYPE_CHECKING:
    from pydantic import BaseModel

    from axon_cli.policy.decision_context import Containment, Which
    from axon_cli.settings.config import LoadedSettings

__all__ = ["RulePolicy", "load_policy", "decide", "resolve_mode", "PROJECT_FILE"]

PROJECT_FILE = PERMISSIONS
HEADER = ("# What axon may do without asking. A rule is tool or tool(pattern); deny > ask > allow > mode.\n")


def resolve_mode(loaded: LoadedSettings, rules: RuleSet) -> tuple[str, str]:
    """The effective mode and where it came from."""
    source = loaded.source("mode")
    if source.startswith("flag") or not rules.mode:
        return loaded.settings.mode, source
    return rules.mode, rules.mode_source or PROJECT_FILE


class RulePolicy:
    """Checks each call against the rules and the mode; remembers "always allow" answers."""

    def __init__(self, rules: RuleSet, mode: str, project_root: Path, home: Path | None = None,
                 mode_source: str = "default", trust: FolderTrust | None = None,
                 containment: Containment | None = None, which: Which | None = None) -> None:
        self.rules = rules
        self.trust = trust
        self.containment = containment     # facts from the runtime: sandbox and snapshot
        self.which = which
        self.current = CurrentMode(mode, mode_source)     # THE mode of the session (its one owner)
        self.project_root = project_root
        self.home = home or Path.home()
        self._lock = threading.Lock()

    @property
    def mode(self) -> str:
        return self.current.value

    @property
    def mode_source(self) -> str:
        return self.current.source

    def set_mode(self, mode: str) -> None:
        self.current.set(mode, "/mode")

    def rules_with_sources(self) -> list[Rule]:
        return list(self.rules.rules)

    def check(self, spec: ToolFacts, tool_input: BaseModel, ctx: object = None,
              facts: KnownFacts | None = None) -> Decision:
        """Decide one call from its facts, computed once by the tool layer (``facts``); without them
        (a caller outside dispatch) the spec is asked."""
        category = spec.category
        if facts is not None:
            if facts.paths is None and category in ("read", "edit"):
                raise ValueError("the tool could not say which paths the call touches")
            paths, read_only, destructive, shell = list(facts.paths or ()), facts.read_only, facts.destructive, \
                facts.shell
        else:
            paths = list(spec.paths(tool_input))
            read_only, destructive, shell = bool(spec.is_read_only(tool_input)), bool(spec.is_destructive(tool_input)), None
        return decide(spec.name, category, tool_input.model_dump(), read_only, destructive, self.current.value, self.rules,
                      self.project_root, self.home, paths=paths if category in ("read", "edit") else [],
                      source=spec.source, resolve=fs_resolver(self.project_root, self.home),
                      containment=self.containment, which=self.which, probe=DISK, analysis=shell)

    def remember(self, rule: str, scope: Literal["session", "project"]) -> str:
        parsed = parse_rule(rule, "allow", "session" if scope == "session" else PROJECT_FILE)
        with self._lock:
            if scope == "project":
                _append_allow(self.project_root / PROJECT_FILE, parsed.text)
            if parsed not in self.rules.rules:
                self.rules.rules.append(parsed)
        if scope == "project":
            return f'added the allow rule "{parsed.text}" to {PROJECT_FILE}' + self._keep_trusted(parsed.text)
        return f'allowing "{parsed.text}" for the rest of this session'

    def _keep_trusted(self, rule: str) -> str:
        """The rule the user just approved is trusted: writing it keeps the folder trusted."""
        try:
            (self.trust or FolderTrust(self.project_root)).keep([allow_item(rule)])
        except AxonError as e:
            return f" (not recorded as trusted: {e}; `axon trust` shows it)"
        return ""


def _append_allow(path: Path, rule: str) -> None:
    """Add ``rule`` to the file's allow list, keeping its comments and layout (atomic write)."""
    import tomlkit

    from axon_cli.kernel.state import atomic_write, ensure_state_dir

    ensure_state_dir(path.parent)
    text = path.read_text(encoding="utf-8") if path.exists() else HEADER
    try:
        doc = tomlkit.parse(text)
    except Exception as e:
        raise ConfigError(f"{PROJECT_FILE}: invalid TOML: {e}") from None
    allow = doc.get("allow")
    if allow is None:
        doc["allow"] = tomlkit.array()
        allow = doc["allow"]
    if not isinstance(allow, list):
        raise ConfigError(f"{PROJECT_FILE}: 'allow' must be a list of rules")
    if rule not in [str(x) for x in allow]:
        allow.append(rule)
    atomic_write(path, tomlkit.dumps(doc).encode("utf-8"))


def load_policy(loaded: LoadedSettings, project_root: Path, containment: Containment | None = None,
                which: Which | None = None) -> RulePolicy:
    """Rules from the user and project permission files, and the effective mode; ``containment``
    and ``which`` are the runtime's facts for shell commands."""
    from axon_cli.settings.config import user_config_dir

    rules = load_rules(project_root, user_config_dir(), loaded.trust)
    mode, source = resolve_mode(loaded, rules)
    return RulePolicy(rules, mode, project_root, Path.home(), source, trust=loaded.trust, containment=containment,
                      which=which)
