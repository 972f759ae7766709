"""Peak RSS of ``axon run`` reading hostile pictures, against ``axon run`` reading a small text file.

Each case is one real ``axon run`` (a vision model name, the scripted local server) whose model asks for
``read_file`` of the pictures in one reply (so the calls run side by side), then ends the turn. The
figure is the process's own peak RSS (``ru_maxrss`` from ``wait4``); the goal is ≤ 300 MB for every
case, whatever the picture. The pictures are small files that decode to large canvases: a 7999×7999
RGBA PNG (256 MB decoded), a 16,000,000×4 RGBA PNG, a 7999×7999 JPEG, the same JPEG progressive,
a 4×16,000,000 grey PNG (its rows' pointers alone are
128 MB), and four 5000×5000 RGBA PNGs at once (100 MB decoded each: each alone fits, together they do not).

    python bench/bench_images.py          # prints one line per case
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.e2e.attacks.pictures import big_jpeg, blank_png  # noqa: E402
from tests.fakeserver import ScriptedServer, text_reply, tool_reply  # noqa: E402

__all__ = ["image_rss_notes", "GOAL_MB"]

GOAL_MB = 300


def _peak_mb(axon: list[str], task: str, paths: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, str]:
    """Peak RSS (MB) of one ``axon run`` whose model reads ``paths`` in one reply; and what the model got."""
    with ScriptedServer([tool_reply(*[("read_file", {"path": p}) for p in paths]), text_reply("done")]) as server:
        env = {**env, "OPENAI_BASE_URL": server.url}
        proc = subprocess.Popen([*axon, "run", task], cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode != 0 or len(server.requests) != 2:
            raise RuntimeError(f"axon run {task!r} exited {proc.returncode} after {len(server.requests)} requests")
        got = str(server.requests[1].messages[-len(paths) - 1:])
    kinds = "image" if "image_url" in got else "refusal"
    return usage.ru_maxrss / 1024, kinds


def image_rss_notes(axon: list[str], tmp: Path) -> list[str]:
    project, home = tmp / "proj", tmp / "home"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AXON_"))}
    env.update({"HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"), "XDG_CACHE_HOME": str(home / ".cache"),
                "OPENAI_API_KEY": "sk-bench", "AXON_MODEL": "gpt-4o"})
    four = [f"mid{i}.png" for i in range(4)]
    # made in a child: a peak of this process would be inherited by each axon it forks (ru_maxrss)
    subprocess.run([sys.executable, __file__, "--make", str(project)], check=True)
    base, _ = _peak_mb(axon, "read notes.txt", ["notes.txt"], project, env)
    notes = [f"Peak RSS of `axon run` reading a small text file (baseline): {base:.0f} MB."]
    cases = [("a 7999×7999 RGBA PNG (249 KB)", ["big.png"]), ("a 16,000,000×4 RGBA PNG", ["wide.png"]),
             ("a 4×16,000,000 grey PNG", ["tall.png"]),
             ("a 7999×7999 JPEG", ["huge.jpg"]), ("a 7999×7999 progressive JPEG", ["huge-progressive.jpg"]),
             ("four 5000×5000 RGBA PNGs in one reply", four)]
    for what, paths in cases:
        peak, got = _peak_mb(axon, f"look at {what}", paths, project, env)
        verdict = "✓" if peak <= GOAL_MB else "✗"
        notes.append(f"Peak RSS of `axon run` reading {what}: {peak:.0f} MB ({peak / base:.2f}× the baseline; "
                     f"goal ≤ {GOAL_MB} MB {verdict}; the model got: {got}).")
    return notes


def make_pictures(project: Path) -> None:
    (project / "notes.txt").write_text("hello\n" * 100)
    (project / "big.png").write_bytes(blank_png(7999, 7999))
    (project / "wide.png").write_bytes(blank_png(16_000_000, 4))
    (project / "tall.png").write_bytes(blank_png(4, 16_000_000, grey=True))
    (project / "huge.jpg").write_bytes(big_jpeg(7999, progressive=False))
    (project / "huge-progressive.jpg").write_bytes(big_jpeg(7999, progressive=True))
    mid = blank_png(5000, 5000)
    for i in range(4):
        (project / f"mid{i}.png").write_bytes(mid + bytes([i]))      # four files, not one


if __name__ == "__main__" and sys.argv[1:2] == ["--make"]:
    make_pictures(Path(sys.argv[2]))
elif __name__ == "__main__":
    with tempfile.TemporaryDirectory(prefix="axon-bench-images-") as tmp:
        for line in image_rss_notes(["axon"], Path(tmp)):
            print(line, flush=True)
