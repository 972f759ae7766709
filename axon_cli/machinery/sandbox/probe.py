"""Whether bubblewrap can build the sandbox here, and which mode ``auto`` becomes.

The probe runs ``bwrap`` once with the sandbox's namespaces. Its answer is cached per boot (keyed
by ``/proc/sys/kernel/random/boot_id``, the bwrap binary and its mtime) in axon's user state dir,
so later runs start without spawning it; within one process it is cached in memory too.

``auto`` becomes ``workspace-write`` when the probe succeeds, else ``off`` with the reason (the
runtime shows it once as a notice; ``axon doctor`` shows it too). An explicit ``read-only`` or
``workspace-write`` that cannot work raises ``ConfigError`` (one line, exit 1): a sandbox that was
asked for is never skipped.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import shutil
import subprocess
from dataclasses import dataclass

from axon_cli.kernel.errors import ConfigError
from axon_cli.kernel.state import atomic_write, user_state_dir

__all__ = ["MODES", "CHOICES", "NAMESPACE_FLAGS", "SandboxStatus", "find_bwrap", "probe_failure", "resolve",
           "check_available"]

MODES = ("off", "read-only", "workspace-write")
CHOICES = ("auto", *MODES)
NAMESPACE_FLAGS = ("--unshare-net", "--unshare-pid", "--die-with-parent")
PROBE_TIMEOUT = 10.0
CACHE_FILE = "sandbox-probe.json"
BOOT_ID = "/proc/sys/kernel/random/boot_id"
INSTALL_HINT = "apt install bubblewrap"


@dataclass(frozen=True)
class SandboxStatus:
    requested: str                    # auto | off | read-only | workspace-write
    mode: str                         # the effective mode: off | read-only | workspace-write
    reason: str                       # why, in a few words
    bwrap: str | None = None

    @property
    def fell_back(self) -> bool:
        """``auto`` that had to become ``off``."""
        return self.requested == "auto" and self.mode == "off"

    @property
    def leavable(self) -> bool:
        """An ``auto`` sandbox that is on: a call approved for it may run outside (an explicit mode,
        which the user asked for by name, never is left)."""
        return self.requested == "auto" and self.mode != "off"

    def line(self) -> str:
        return f"{self.mode} ({'auto: ' if self.requested == 'auto' else ''}{self.reason})"


def find_bwrap() -> str | None:
    """``bwrap`` on PATH (looked up each time, so a changed PATH is seen)."""
    return shutil.which("bwrap")


def _boot_id() -> str | None:
    try:
        with open(BOOT_ID, encoding="ascii") as fh:
            return fh.read().strip() or None
    except OSError:
        return None


def _cache_key(bwrap: str) -> dict[str, object] | None:
    boot = _boot_id()
    if boot is None:
        return None
    try:
        mtime = os.stat(bwrap).st_mtime_ns
    except OSError:
        return None
    return {"boot_id": boot, "bwrap": bwrap, "mtime_ns": mtime}


def _run_probe(bwrap: str) -> str | None:
    """None when bwrap can build the sandbox's namespaces here; else the reason (first stderr line)."""
    cmd = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp",
           *NAMESPACE_FLAGS, "true"]
    try:
        done = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=PROBE_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(getattr(e, "strerror", None) or e)
    if done.returncode == 0:
        return None
    lines = done.stderr.decode(errors="replace").strip().splitlines()
    return lines[0] if lines else f"exit code {done.returncode}"


@functools.lru_cache(maxsize=8)
def probe_failure(bwrap: str) -> str | None:
    """The probe's answer for ``bwrap`` (None = works), from this boot's cache when there is one."""
    key = _cache_key(bwrap)
    path = user_state_dir() / CACHE_FILE
    if key is not None:
        with contextlib.suppress(OSError, ValueError, TypeError):
            cached = json.loads(path.read_text(encoding="utf-8"))
            if isinstance(cached, dict) and all(cached.get(k) == v for k, v in key.items()):
                reason = cached.get("reason")
                return reason if isinstance(reason, str) else None
    reason = _run_probe(bwrap)
    if key is not None:
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            atomic_write(path, json.dumps({**key, "reason": reason}).encode(), mode=0o600)
    return reason


def _unknown(mode: str) -> ConfigError:
    return ConfigError(f"unknown sandbox mode {mode!r} (expected one of: {', '.join(CHOICES)})")


def resolve(requested: str) -> SandboxStatus:
    """The effective sandbox for ``requested``; raises ConfigError for an explicit mode that cannot
    work here, never for ``auto``."""
    if requested == "off":
        return SandboxStatus("off", "off", "asked for")
    if requested not in CHOICES:
        raise _unknown(requested)
    bwrap = find_bwrap()
    if bwrap is None:
        if requested == "auto":
            return SandboxStatus("auto", "off", f"bubblewrap is not installed: {INSTALL_HINT}")
        raise ConfigError(f"sandbox '{requested}' needs bubblewrap: {INSTALL_HINT} (or use --sandbox off)")
    failure = probe_failure(bwrap)
    if failure is not None:
        if requested == "auto":
            return SandboxStatus("auto", "off", f"bwrap cannot create namespaces here: {failure}", bwrap)
        raise ConfigError(f"sandbox '{requested}' cannot start: bwrap failed here ({failure}); "
                          "allow unprivileged user namespaces or use --sandbox off")
    mode = "workspace-write" if requested == "auto" else requested
    return SandboxStatus(requested, mode, f"bubblewrap works here ({bwrap})", bwrap)


def check_available(mode: str) -> None:
    """Raise ConfigError (one line) when ``mode`` needs a sandbox that cannot be made here."""
    resolve(mode)
