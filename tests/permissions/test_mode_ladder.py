"""The mode ladder, command by command: what each mode does with a call, on a real project on disk.

Each row is a command and six letters, one a mode in ladder order (read-only, plan, default,
accept-edits, auto, yolo): ``A`` runs, ``Q`` asks, ``D`` denied. The project has real files, so
"overwrites an existing file" and "creates a new one" are told apart by the disk; the sandbox and a
snapshot are on; ``data/`` is git-ignored (snapshotted, as small ignored files are) and
``node_modules/`` is a regenerable directory a snapshot does not hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.policy.decide import decide
from axon_cli.policy.decision_context import DISK, Containment
from axon_cli.policy.modes import MODES
from axon_cli.policy.paths import fs_resolver
from axon_cli.policy.rules import RuleSet

LETTER = {"allow": "A", "ask": "Q", "deny": "D"}
READ_ONLY = [
    "ls", "ls -la", "cat a.txt", "head -5 a.txt", "tail -n 3 b.txt", "grep -rn foo .", "git status",
    "git log --oneline -5", "git diff", "find . -name '*.py'", "wc -l a.txt", "rg foo", "pwd", "echo hi",
    "du -sh .", "stat a.txt", "diff a.txt b.txt", "sort a.txt", "git show HEAD", "which python3",
    "cat a.txt | grep x | wc -l", "git branch -a", "file a.py",
]
DESTRUCTIVE = [
    "rm a.txt", "rm -f a.txt", "rm -rf sub", "rm -r sub", "unlink a.txt", "shred -u a.txt", "truncate -s 0 a.txt",
    ": > a.txt", "echo x > a.txt", "echo x >| a.txt", "printf x &> a.txt", "mv -f b.txt a.txt", "mv b.txt a.txt",
    "cp b.txt a.txt", "cp -f b.txt a.txt", "rm data/db.sqlite", "ln -sf /dev/null a.txt", "chmod 000 a.txt", "chmod -R 000 sub",
    "chmod +x run.sh", "find . -name '*.tmp' -delete", "find sub -type f -delete", "rmdir emptydir",
    "dd if=/dev/zero of=a.txt bs=1 count=1", "tee a.txt < b.txt", "echo hi; rm a.txt", "true && rm a.txt",
    "rm a.txt || true", "mv b.txt sub/", "cp b.txt sub/x",
]
# issue 34: a program's own output option, or what it does to its inputs, replaces or removes an existing path
OWN_OUTPUT = [
    "tar -cf a.tar b.txt", "tar cvf a.tar b.txt", "tar -czf new.tgz --remove-files b.txt", "zip -m new.zip a.txt",
    "zip -mr new.zip sub", "mv a.txt a.txt.bak", "mv a.txt renamed.txt", "mv -n a.txt renamed.txt", "mv -t sub a.txt",
    "gzip a.txt", "gzip -f a.txt", "bzip2 a.txt", "xz -T0 a.txt", "gunzip a.gz", "zstd --rm a.txt", "lz4 --rm a.txt",
    "zstd -f b.txt -o a.txt", "sort -o a.txt b.txt", "sort b.txt --output=a.txt", "sort -mo a.txt b.txt",
    "rsync -a --remove-source-files b.txt sub/", "rsync -a --delete sub/ data/", "ffmpeg -y -i in.mp4 out.mp4",
    "ffmpeg -i in.mp4 -c:v libx264 out.mp4", "convert img.png -flip img.png", "magick img.png -resize 50% out.mp4",
    "mogrify -path sub -format txt b.png", "split -l 1 list.txt", "split -b 1 a.txt part", "pandoc b.txt -o a.txt", "pandoc --output=a.txt b.txt",
    "openssl enc -in b.txt -out a.txt", "install b.txt a.txt", "ln -f b.txt a.txt", "echo x | tee a.txt",
    "gzip -c b.txt > a.txt",
]
OWN_OUTPUT_NEW = [   # the same programs writing a path that does not exist yet, or keeping their inputs
    "tar -cf new.tar a.txt", "tar -czf - sub > new.tgz", "zip -r new.zip sub", "gzip -k a.txt", "gzip -c a.txt > new.gz",
    "bzip2 -k a.txt", "xz -k a.txt", "zstd a.txt", "lz4 a.txt", "sort -o new.txt a.txt", "split -b 1 list.txt chunk",
    "ffmpeg -i in.mp4 new.mp4", "ffmpeg -n -i in.mp4 out.mp4", "convert img.png new.png", "pandoc b.txt -o new.html",
    "cat a.txt | gzip > new.gz",
]
OWN_OUTPUT_EDITS = ["zip x.zip a.txt", "tar -rf a.tar b.txt", "mogrify -flip img.png"]
EDITS = ["sed -i s/x/y/ a.txt", "echo x >> a.txt", "tee -a a.txt < b.txt", "black a.py"]
CREATES = ["touch new.txt", "echo x > new.txt", "mkdir -p build", "cp a.txt new.txt", "python3 script.py", "make",
           "pytest -q", "python3 gen.py > new.txt"]
READ_ONLY_FILE = [   # ro.txt has no write bit for anyone (0444): changing it asks below yolo, sandbox or not
    "cp b.txt ro.txt", "echo x > ro.txt", "echo x >> ro.txt", "sed -i s/x/y/ ro.txt", "tee ro.txt < b.txt",
    "rm ro.txt", "mv b.txt ro.txt",
]
ASK_ALWAYS = [   # beyond what the sandbox confines or a snapshot undoes: asks below yolo
    "curl https://example.com", "wget https://example.com/x", "git push origin main", "pip install requests",
    "echo x > /tmp/out", "rm -rf node_modules", "git clean -fdx", "git reset --hard", "xargs rm < list.txt",
    "cd sub && rm x", "kill 1", "git branch -D old", "git stash drop", "git checkout -- a.txt", "git restore a.txt",
    "awk 'BEGIN{system(\"rm a.txt\")}'", "x=rm; $x a.txt", "perl -e 'unlink \"a.txt\"'",
    "python3 -c \"import os; os.remove('a.txt')\"", "sed -n 'w a.txt' b.txt", "git -c core.fsmonitor=x status",
    "tar -xf a.tar", "tar xkf a.tar", "unzip -o x.zip", "unzip x.zip", "patch -p1 < x.diff", "patch a.txt x.diff",
    "7z x -y x.7z", "curl -o a.txt https://example.com", "curl -O https://example.com/a.txt",
    "wget -O a.txt https://example.com/x", "awk -i inplace 1 a.txt",
    "git mv a.txt c.txt", "git mv -f b.txt a.txt", "git rm a.txt",   # git writes .git: the sandbox does not let it
]
ROWS: list[tuple[str, str]] = (
    [(c, "AAAAAA") for c in READ_ONLY] + [(c, "DDQQAA") for c in DESTRUCTIVE + OWN_OUTPUT]
    + [(c, "DDQAAA") for c in EDITS + OWN_OUTPUT_EDITS] + [(c, "DDAAAA") for c in CREATES + OWN_OUTPUT_NEW]
    + [(c, "DDQQQA") for c in ASK_ALWAYS + READ_ONLY_FILE]
    + [("cat .env", "QQQQQQ"), ("cat ~/.ssh/id_rsa", "QQQQQQ")]
)


def make_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in {"a.txt": "x\n", "b.txt": "y\n", "a.py": "x = 1\n", "sub/x": "z\n", "sub/b.txt": "old\n", "run.sh": "echo\n",
                       "data/db.sqlite": "db", "node_modules/pkg/index.js": "x\n", "script.py": "print(1)\n", "list.txt": "a.txt\n", ".env": "K=v\n",
                       "gen.py": "print(2)\n", "a.tar": "tar", "x.zip": "zip", "a.gz": "gz", "in.mp4": "v",
                       "out.mp4": "v", "img.png": "png", "b.png": "png", "sub/b.txt.bak": "", "xaa": "1",
                       "partaa": "2", "x.diff": "", "x.7z": "7z"}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "emptydir").mkdir(exist_ok=True)
    (root / ".git").mkdir(exist_ok=True)
    (root / "ro.txt").write_text("the user made this read-only\n")
    (root / "ro.txt").chmod(0o444)
    return root


def containment(root: Path) -> Containment:
    def uncovered(paths: list[str]) -> dict[str, str]:
        held_not = str(root / "node_modules")
        return {p: "is a regenerable directory (node_modules: npm packages), which undo does not hold"
                for p in paths if p == held_not or p.startswith(held_not + "/")}
    return Containment(confined=True, uncovered=uncovered, may_leave=True)


def verdicts(tool: str, category: str, tool_input: dict[str, str], root: Path, home: Path,
             read_only: bool = False, contained: Containment | None = None) -> str:
    paths = [tool_input["path"]] if "path" in tool_input else []
    return "".join(LETTER[decide(tool, category, tool_input, read_only, False, mode, RuleSet(), root, home,
                                 paths=paths, resolve=fs_resolver(root, home), containment=contained,
                                 which=lambda n: f"/usr/bin/{n}", probe=DISK).behavior] for mode in MODES)


@pytest.fixture(scope="module")
def proj(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("ladder")
    (base / "home").mkdir()
    return make_project(base / "proj"), base / "home"


def test_the_table_has_at_least_sixty_commands() -> None:
    assert len(ROWS) >= 60 and len({c for c, _ in ROWS}) == len(ROWS)


@pytest.mark.parametrize("command,expected", ROWS, ids=[c for c, _ in ROWS])
def test_each_mode_with_the_sandbox_on(command: str, expected: str, proj: tuple[Path, Path]) -> None:
    root, home = proj
    got = verdicts("bash", "shell", {"command": command}, root, home, contained=containment(root))
    assert got == expected, f"{command}: {dict(zip(MODES, got, strict=True))}"


@pytest.mark.parametrize("command,expected", ROWS, ids=[c for c, _ in ROWS])
def test_without_a_sandbox_auto_acts_as_accept_edits(command: str, expected: str, proj: tuple[Path, Path]) -> None:
    root, home = proj
    got = verdicts("bash", "shell", {"command": command}, root, home, contained=None)
    assert got[4] == got[3], command                 # auto == accept-edits
    assert got[2] in ("Q", "D") or expected[2] == "A" and command in READ_ONLY, command   # only reads run unasked
    assert got[0] == expected[0] and got[1] == expected[1] and got[5] == expected[5], command


def test_every_mode_runs_what_the_one_below_it_runs(proj: tuple[Path, Path]) -> None:
    root, home = proj
    for command, _ in ROWS:
        for contained in (containment(root), None):
            got = verdicts("bash", "shell", {"command": command}, root, home, contained=contained)
            ranks = ["DQA".index(letter) for letter in got]
            assert ranks == sorted(ranks), (command, got)


def test_plan_decides_every_command_as_read_only_does(proj: tuple[Path, Path]) -> None:
    root, home = proj
    plan, read_only = MODES.index("plan"), MODES.index("read-only")
    for command, _ in ROWS:
        for contained in (containment(root), None):
            got = verdicts("bash", "shell", {"command": command}, root, home, contained=contained)
            assert got[plan] == got[read_only], (command, got)


@pytest.mark.parametrize("tool,path,expected", [
    ("write_file", "ro.txt", "DDQQQA"), ("edit_file", "ro.txt", "DDQQQA"),   # read-only: asks below yolo
    ("write_file", "a.txt", "DDQAAA"), ("edit_file", "a.txt", "DDQAAA"),    # writable: accept-edits runs it
])
def test_a_read_only_file_asks_before_a_file_tool_changes_it(tool: str, path: str, expected: str,
                                                              proj: tuple[Path, Path]) -> None:
    root, home = proj
    assert verdicts(tool, "edit", {"path": path}, root, home, contained=containment(root)) == expected
    assert verdicts(tool, "edit", {"path": path}, root, home, contained=None) == expected


@pytest.mark.parametrize("command,asked,expected", [
    ("python3 run_tests.py", True, "ask"),       # the model asks to leave: the rule approves inside only
    ("python3 run_tests.py", False, "allow"),    # inside the sandbox, the rule stands
    ("make deploy", False, "ask"),               # a runner of project code (checked with outside_sandbox below)
    ("git push origin main", False, "allow"),    # a system program that needs the network: the rule approves it
    ("./deploy.sh", True, "ask"),
])
def test_an_allow_rule_approves_running_inside_not_leaving(command: str, asked: bool, expected: str,
                                                           proj: tuple[Path, Path]) -> None:
    from axon_cli.policy.rules import rules_from_data

    root, home = proj
    (root / "run_tests.py").write_text("print('ok')\n")
    (root / "deploy.sh").write_text("echo deploy\n")
    rules = rules_from_data({"allow": ["bash(python3 run_tests.py)", "bash(git push *)", "bash(./deploy.sh)",
                                       "bash(make *)"]}, "test")
    tool_input = {"command": command, "outside_sandbox": asked}
    d = decide("bash", "shell", tool_input, False, False, "default", rules, root, home,
               resolve=fs_resolver(root, home), containment=containment(root), which=lambda n: f"/usr/bin/{n}",
               probe=DISK)
    if command == "make deploy":         # stays inside unless asked: then a runner of project code asks
        assert d.behavior == "allow" and d.outside_sandbox is None
        tool_input["outside_sandbox"] = True
        d = decide("bash", "shell", tool_input, False, False, "default", rules, root, home,
                   resolve=fs_resolver(root, home), containment=containment(root), which=lambda n: f"/usr/bin/{n}",
                   probe=DISK)
    assert d.behavior == expected, d
    if expected == "ask":
        assert d.outside_sandbox and d.suggested_rule is None, d    # no "always allow" that would approve it
