"""Issue 34: a program's own output option, or what it does to its inputs, decides whether it asks in
``default`` — one row per command form, run against a project where the path it names exists and
one where it does not (in the style of codex's execpolicy tests: the form, then "asks" / "runs").

The sandbox and a snapshot are on (``default`` runs a sandboxed, undoable command unasked unless it
destroys or edits an existing file). The model-facing check (``guidance.destructive``) reads the same
analysis: every form that asks here is one it never hands back to the model.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.agent.guidance.destructive import destroys
from axon_cli.policy.decide import decide
from axon_cli.policy.decision_context import DISK, Containment
from axon_cli.policy.paths import fs_resolver
from axon_cli.policy.rules import RuleSet

# command, the path whose existence decides it (created as a file, or a folder when it ends in /)
FORMS: list[tuple[str, str]] = [
    ("tar -cf out.tar src.txt", "out.tar"), ("tar cvzf out.tgz src.txt", "out.tgz"),
    ("tar --create --file=out.tar src.txt", "out.tar"), ("tar -czf new.tgz --remove-files gone.txt", "gone.txt"),
    ("zip -m new.zip gone.txt", "gone.txt"), ("zip --move new.zip gone.txt", "gone.txt"),
    ("zip -O out.zip x.zip src.txt", "out.zip"),
    ("mv gone.txt gone.txt.bak", "gone.txt"), ("mv -n gone.txt other.txt", "gone.txt"), ("mv -t sub/ gone.txt", "gone.txt"),
    ("gzip gone.txt", "gone.txt"), ("gzip -9 gone.txt", "gone.txt"), ("gunzip gone.gz", "gone.gz"),
    ("bzip2 gone.txt", "gone.txt"), ("bunzip2 gone.bz2", "gone.bz2"), ("xz gone.txt", "gone.txt"),
    ("xz -d gone.xz", "gone.xz"), ("unxz gone.xz", "gone.xz"), ("lzma gone.txt", "gone.txt"),
    ("zstd --rm gone.txt", "gone.txt"), ("lz4 --rm gone.txt", "gone.txt"), ("zstd src.txt -o out.zst", "out.zst"),
    ("sort -o out.txt src.txt", "out.txt"), ("sort --output out.txt src.txt", "out.txt"), ("sort -ro out.txt src.txt", "out.txt"),
    ("split -l 1 src.txt", "xaa"), ("split -d -b 1 src.txt part", "part00"), ("split -a 3 src.txt p", "paaa"),
    ("rsync -a --remove-source-files gone.txt newdir/", "gone.txt"),
    ("ffmpeg -y -i in.mp4 out.mp4", "out.mp4"), ("ffmpeg -i in.mp4 -c:v libx264 -b:v 1M out.mp4", "out.mp4"),
    ("convert src.png -resize 50% out.png", "out.png"), ("magick src.png out.png", "out.png"),
    ("mogrify -format jpg src.png", "src.jpg"), ("mogrify -flip out.png", "out.png"),
    ("pandoc src.txt -o out.html", "out.html"), ("gcc -o out main.c", "out"), ("go build -o out .", "out"),
    ("openssl enc -in src.txt -out out.bin", "out.bin"), ("somecompiler --output-file=out.bin src.txt", "out.bin"),
    ("zip x.zip src.txt", "x.zip"), ("tar -rf out.tar src.txt", "out.tar"), ("tar --append -f out.tar src.txt", "out.tar"),
    ("cp src.txt out.txt", "out.txt"), ("install src.txt out.txt", "out.txt"), ("ln -f src.txt out.txt", "out.txt"),
    ("tee out.txt < src.txt", "out.txt"), ("dd if=src.txt of=out.txt", "out.txt"), ("sed -i s/a/b/ out.txt", "out.txt"),
    ("echo x > out.txt", "out.txt"),
]
# the same programs when they keep their inputs or write nowhere they name: run, whatever exists
KEEPS = [
    "gzip -k src.txt", "gzip -c src.txt", "gzip --stdout src.txt", "gzip -t src.gz", "gzip -l src.gz", "bzip2 -k src.txt",
    "xz -k src.txt", "xz -c src.txt", "zstd src.txt", "lz4 src.txt", "sort src.txt", "sort -r src.txt", "cat src.txt | gzip",
    "tar -czf - src.txt", "ffmpeg -n -i in.mp4 src.png", "split --filter=cat src.txt", "grep -o x src.txt",
    "tar -tf src.tar", "zip -O - x.zip src.txt",
]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "proj"
    for name in ("src.txt", "src.png", "in.mp4", "main.c", "src.gz", "src.tar"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("data\n")
    (root / "sub").mkdir()
    (tmp_path / "home").mkdir()
    return root


def _default(command: str, root: Path) -> str:
    contained = Containment(confined=True, uncovered=lambda _paths: {}, may_leave=True)
    home = root.parent / "home"
    return decide("bash", "shell", {"command": command}, False, False, "default", RuleSet(), root, home,
                  resolve=fs_resolver(root, home), containment=contained, which=lambda n: f"/usr/bin/{n}",
                  probe=DISK).behavior


@pytest.mark.parametrize("command,path", FORMS, ids=[c for c, _ in FORMS])
def test_it_asks_when_the_path_exists(command: str, path: str, project: Path) -> None:
    (project / path).write_text("precious\n")
    assert _default(command, project) == "ask"
    in_place = ("zip x.zip", "tar -rf", "tar --append", "sed -i", "mogrify -flip")   # edits: asked, nothing lost
    assert destroys(command) or command.startswith(in_place) or command.startswith("mv -n")   # a move loses no content


@pytest.mark.parametrize("command,path", FORMS, ids=[c for c, _ in FORMS])
def test_it_runs_when_the_path_does_not_exist(command: str, path: str, project: Path) -> None:
    assert not (project / path).exists()
    assert _default(command, project) == "allow"


@pytest.mark.parametrize("command", KEEPS)
def test_a_form_that_keeps_its_inputs_runs(command: str, project: Path) -> None:
    for name in ("xaa", "src.txt.gz", "src.txt.zst", "src.txt.lz4", "src.txt.bz2", "src.txt.xz"):
        (project / name).write_text("existing\n")
    assert _default(command, project) == "allow"
