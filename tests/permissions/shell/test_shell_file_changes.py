"""Table-driven file-change facts (issue 20's list): what a command always destroys (``destructive``),
which files it deletes, which it replaces if they exist (``overwrites``) and which it edits in place
(``edits``); and the brace expansion that once hid a target (``rm {data/db,x}``)."""

from __future__ import annotations

import pytest

from axon_cli.shell.analyze import analyze
from axon_cli.shell.words import MAX_WORDS, expand_braces

# command, destructive, deletes, overwrites, edits
CHANGES: list[tuple[str, bool, list[str], list[str], list[str]]] = [
    # always destructive, with the files they delete
    ("rm a b", True, ["a", "b"], [], []), ("rm -rf data", True, ["data"], [], []), ("unlink f", True, ["f"], [], []),
    ("shred -u f", True, ["f"], [], []), ("truncate -s 0 f", True, ["f"], [], []), ("rmdir d", True, ["d"], [], []),
    ("find . -delete", True, ["."], [], []), ("find data -name '*.db' -delete", True, ["data"], [], []),
    ("rm data/{db.sqlite,x}", True, ["data/db.sqlite", "data/x"], [], []), ("{rm,-rf,data}", True, ["data"], [], []),
    ("chmod +x a b", True, [], [], ["a", "b"]), ("chown me a", True, [], [], ["a"]), ("chgrp g a", True, [], [], ["a"]),
    ("git clean -fd", True, [], [], []), ("git reset --hard", True, [], [], []), ("git checkout -- a.py", True, [], [], []),
    ("git checkout .", True, [], [], []), ("git checkout HEAD a.py", True, [], [], []), ("git restore a.py", True, [], [], []),
    ("git stash drop", True, [], [], []), ("git stash clear", True, [], [], []), ("git branch -D x", True, [], [], []),
    ("git rm -f a.py", True, ["a.py"], [], []), ("git switch -f main", True, [], [], []),
    ("rsync -a --delete src/ dst", True, ["dst"], ["dst/"], []),
    # not destructive unless the target exists: the targets
    ("cp a b", False, [], ["b", "b/a"], []), ("cp -r src dst", False, [], ["dst", "dst/src/"], []),
    ("cp a b c/", False, [], ["c/a", "c/b"], []), ("cp -t dir a b", False, [], ["dir/a", "dir/b"], []),
    ("cp -n a b", False, [], [], []), ("mv a b", False, [], ["b", "b/a"], []), ("mv -T a b", False, [], ["b"], []),
    ("mv -n a b", False, [], [], []), ("ln -s x b", False, [], [], []), ("ln -sf x b", False, [], ["b", "b/x"], []),
    ("install -m 755 a bin/a", False, [], ["bin/a", "bin/a/a"], []), ("install -d d", False, [], [], []),
    ("rsync -a src/ dst", False, [], ["dst/"], []), ("dd if=a of=b", False, [], ["b"], []),
    ("tee f g", False, [], ["f", "g"], []), ("ls | tee /dev/null", False, [], [], []), ("echo x > f", False, [], ["f"], []),
    ("echo x >| f", False, [], ["f"], []), ("ls &> all.log", False, [], ["all.log"], []), ("> empty.txt", False, [], ["empty.txt"], []),
    ("cat a > b", False, [], ["b"], []), ("{ ls; } > out", False, [], ["out"], []), ("ls > /dev/null", False, [], [], []),
    ("touch a", False, [], [], []), ("mkdir -p d", False, [], [], []),
    # edits in place
    ("echo x >> log", False, [], [], ["log"]), ("cat <> f", False, [], [], ["f"]), ("tee -a log", False, [], [], ["log"]),
    ("dd if=a of=b conv=notrunc", False, [], [], ["b"]), ("sed -i s/a/b/ f g", False, [], [], ["f", "g"]),
    ("sed -i.bak -e s/a/b/ f", False, [], [], ["f"]), ("perl -pi -e 's/a/b/' f", False, [], [], ["f"]),
    ("black src", False, [], [], ["src"]), ("black --check src", False, [], [], []),
    ("ruff format", False, [], [], ["."]), ("ruff format --check", False, [], [], []),
    ("ruff check --fix src", False, [], [], ["src"]), ("ruff check src", False, [], [], []), ("isort a.py", False, [], [], ["a.py"]),
    ("isort --check-only a.py", False, [], [], []), ("autopep8 -i a.py", False, [], [], ["a.py"]), ("autopep8 a.py", False, [], [], []),
    ("prettier --write src", False, [], [], ["src"]), ("prettier --check src", False, [], [], []),
    ("eslint --fix", False, [], [], ["."]), ("eslint src", False, [], [], []), ("gofmt -w main.go", False, [], [], ["main.go"]),
    ("gofmt main.go", False, [], [], []), ("goimports -w x.go", False, [], [], ["x.go"]),
    ("rustfmt src/main.rs", False, [], [], ["src/main.rs"]), ("rustfmt --check src/main.rs", False, [], [], []),
    ("clang-format -i a.c", False, [], [], ["a.c"]), ("clang-format a.c", False, [], [], []),
    ("shfmt -w a.sh", False, [], [], ["a.sh"]), ("terraform fmt", False, [], [], ["."]), ("terraform fmt -check", False, [], [], []),
]


def _all(command: str) -> tuple[bool, list[str], list[str], list[str]]:
    a = analyze(command)
    return (a.destructive, [w for u in a.units for w in u.deletes], [w for u in a.units for w in u.overwrites],
            [w for u in a.units for w in u.edits])


@pytest.mark.parametrize("command,destructive,deletes,overwrites,edits", CHANGES, ids=[c for c, *_ in CHANGES])
def test_file_changes(command: str, destructive: bool, deletes: list[str], overwrites: list[str], edits: list[str]) -> None:
    assert _all(command) == (destructive, deletes, overwrites, edits)
    assert analyze(command).opaque_reasons == []


def test_opaque_commands_keep_their_file_facts() -> None:
    assert _all("git -C x clean -fd")[0] and analyze("git -C x clean -fd").opaque_reasons
    assert _all("ruby -i -pe 'x' f") == (False, [], [], ["f"]) and analyze("ruby -i -pe 'x' f").opaque_reasons


def test_brace_expansion() -> None:
    assert expand_braces("a{b,c}d") == ["abd", "acd"]
    assert expand_braces("{a,b}{1..2}") == ["a1", "a2", "b1", "b2"]
    assert expand_braces("x{a..c}") == ["xa", "xb", "xc"]
    assert expand_braces("${x}") == ["${x}"] and expand_braces("{}") == ["{}"] and expand_braces("{a}") == ["{a}"]
    assert expand_braces("{a,{b,c}}") == ["a", "b", "c"]
    assert len(expand_braces("{a,b}" * 10)) > MAX_WORDS        # stops early, never exponential
