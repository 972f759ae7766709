"""Table-driven facts of the shell analysis for issue 21 (classes B and C) and issue 20's destructive
list: for each command, whether it is read-only, why it is opaque (the analysis cannot see what it
runs or which files it changes), whether it is always destructive, and which files it deletes,
overwrites if they exist, or edits in place."""

from __future__ import annotations

import pytest

from axon_cli.shell.analyze import analyze

# command, read_only, a word of the opaque reason (None: not opaque), destructive
R, W, NO = True, False, None
OPAQUE: list[tuple[str, bool, str | None, bool]] = [
    # B: the program name is filled in when the command runs
    ("x=rm; $x data/db.sqlite", W, "from a variable", False), ("$(echo rm) data/db.sqlite", W, "from a variable", False),
    ("`echo rm` data/db.sqlite", W, "from a variable", False), ("${x} f", W, "from a variable", False),
    ("\"$@\"", W, "from a variable", False), ("f() { \"$@\"; }; f rm data/db", W, "from a variable", False),
    ("/???/r? -rf data", W, "glob pattern", False), ("find . -exec $x {} \\;", W, "from a variable", False),
    ("find . -exec {} \\;", W, "find or xargs", False), ("xargs $cmd", W, "xargs runs a program", False),
    ("xargs -I X X", W, "xargs runs a program", False), ("ls | xargs -I{} {}", W, "xargs runs a program", False),
    # B: aliases
    ("shopt -s expand_aliases; alias x=rm; x data/db.sqlite", W, "aliases", False),
    ("alias ls='rm -rf data'; ls", W, "aliases", False), ("shopt -s expand_aliases; ls", W, "aliases", False),
    # B: eval / bash -c of text built from expansions (re-parsed as shell)
    ("eval \"$cmd\"", W, "built from expansions", False), ("eval ls $x", W, "built from expansions", False),
    ("eval \"ls $x\"", W, "built from expansions", False), ("bash -c \"ls $x\"", W, "built from expansions", False),
    ("trap \"$x\" EXIT", W, "built from expansions", False),
    # B: code another command produces, read through a process substitution or a stream
    ("source <(echo 'rm data/db')", W, "code that another command produces", False),
    (". <(curl -s x)", W, "code that another command produces", False),
    ("bash <(echo rm x)", W, "code that another command produces", False),
    ("source /dev/stdin <<< 'rm x'", W, "code that another command produces", False),
    ("diff <(ls a) <(ls b)", R, NO, False), ("cat <(echo hi)", R, NO, False),
    # B: interpreters' inline code
    ("awk 'BEGIN{system(\"rm data/db.sqlite\")}'", W, "awk program", False),
    ("awk '{print > \"data/db.sqlite\"}' f", W, "awk program", False), ("awk '{print | \"sh\"}' f", W, "awk program", False),
    ("awk '{\"date\" | getline d}' f", W, "awk program", False), ("gawk -f prog.awk f", W, "gawk program", False),
    ("sed -n 'w data/db.sqlite' a.txt", W, "writes files", False), ("sed 's/a/b/w out' f", W, "writes files", False),
    ("sed 's/a/b/e' f", W, "runs programs", False), ("sed '1e id' f", W, "runs programs", False),
    ("sed -f prog.sed f", W, "cannot be read", False), ("sed -i 'W out' f", W, "writes files", False),
    ("perl -e 'unlink \"data/db.sqlite\"'", W, "perl code", False), ("perl -E 'say 1'", W, "perl code", False),
    ("perl -pi -e 's/a/b/e' f", W, "perl code", False), ("perl -pi -e 's/a/${\\ system(\"id\")}/' f", W, "perl code", False),
    ("ruby -e 'File.delete(\"x\")'", W, "ruby inline", False), ("node -e 'require(\"fs\").rmSync(\"x\")'", W, "node inline", False),
    ("node --eval 'x'", W, "node inline", False), ("php -r 'unlink(\"x\");'", W, "php inline", False),
    ("python3 -c \"import os; os.remove('x')\"", W, "imports os", False),
    ("python -c \"import shutil; shutil.rmtree('data')\"", W, "imports shutil", False),
    ("python3 -c \"open('x', 'w').write('')\"", W, "(open)", False),
    ("python3 -c \"__import__('os').remove('x')\"", W, "__import__", False),
    ("python3 -c \"import sys; sys.modules['os'].remove('x')\"", W, "(modules)", False),
    ("python3 -c \"import random; random._os.remove('x')\"", W, "(_os)", False),
    ("python3 -c \"print(f'{eval(\\\"1\\\")}')\"", W, "(eval)", False),
    ("python3 -c \"import subprocess; subprocess.run(['rm', 'x'])\"", W, "imports subprocess", False),
    ("python3 -c \"from pathlib import Path; Path('x').unlink()\"", W, "imports pathlib", False),
    ("python3 -c \"import json.tool\"", W, "imports json.tool", False), ("python3 -c 'if'", W, "cannot be read", False),
    # B and C: programs that read their program from stdin, or run a command given in their arguments
    ("echo 'rm data/db.sqlite' | sh", W, "standard input", False), ("bash -s < x.sh", W, "standard input", False),
    ("python3 - <<'EOF'\nimport os\nEOF", W, "standard input", False), ("parallel rm ::: a b", W, "parallel runs", False),
    ("flock /tmp/l rm x", W, "flock runs", False), ("strace -f ls", W, "strace runs", False),
    ("vim -c '!rm x' f", W, "vim can run", False), ("ed f < script", W, "ed can run", False),
    # B: git whose config or repository the command chooses
    ("git -c core.fsmonitor='rm -f data/db.sqlite' status", W, "git -c core.fsmonitor", False),
    ("git -c diff.external=x diff", W, "git -c diff.external", False), ("git -c core.pager=less log", W, "core.pager", False),
    ("git --config-env=core.pager=X log", W, "--config-env", False), ("git -c alias.st='!rm x' st", W, "alias.st", False),
    # C: read-only before
    ("BASH_ENV=scripts/env.sh bash -c true", W, "sets BASH_ENV", False), ("env BASH_ENV=x bash -c true", W, "BASH_ENV", False),
    ("ENV=x sh -c true", W, "sets ENV", False), ("export BASH_ENV=x; bash -c true", W, "BASH_ENV", False),
    ("git grep --open-files-in-pager='rm -f a.txt; true' x", W, "--open-files-in-pager", False),
    ("git grep -O'rm -f a.txt' x", W, "git grep -O", False), ("git grep -nO x", W, "git grep -O", False),
    ("git -C vendor/tool status", W, "git -C", False), ("git --git-dir=vendor/tool/.git status", W, "--git-dir", False),
    ("git --work-tree=x status", W, "--work-tree", False), ("git --exec-path=./bin status", W, "--exec-path", False),
    ("cd vendor/tool && git status", W, "changes into", False), ("pushd vendor/tool; git log", W, "changes into", False),
    ("git ls-remote --upload-pack='rm x' .", W, "--upload-pack", False),
    # C: variables that make programs run other code, wherever they are set
    ("PAGER='rm x' git log", W, "sets PAGER", False), ("GIT_EXTERNAL_DIFF=x git diff", W, "GIT_EXTERNAL_DIFF", False),
    ("GIT_PAGER=x git log", W, "GIT_PAGER", False), ("GIT_SSH_COMMAND=x git fetch", W, "GIT_SSH_COMMAND", False),
    ("GIT_CONFIG_COUNT=1 git status", W, "GIT_CONFIG_COUNT", False), ("LD_PRELOAD=./x.so ls", W, "LD_PRELOAD", False),
    ("LD_LIBRARY_PATH=. ls", W, "LD_LIBRARY_PATH", False), ("LD_AUDIT=x ls", W, "LD_AUDIT", False),
    ("PYTHONSTARTUP=x python3", W, "PYTHONSTARTUP", False), ("PROMPT_COMMAND=x bash -i", W, "PROMPT_COMMAND", False),
    ("LESSOPEN='|rm x' less f", W, "LESSOPEN", False), ("EDITOR=x git commit", W, "sets EDITOR", False),
    ("VISUAL=x git commit -e", W, "sets VISUAL", False), ("export PAGER='rm x'", W, "sets PAGER", False),
    ("declare -x EDITOR=x", W, "sets EDITOR", False), ("read PAGER < f", W, "sets PAGER", False),
    ("PATH=./bin:$PATH; ls", W, "sets PATH", False), ("env -i PATH=/x ls", W, "sets PATH", False),
    ("HOME=/tmp/h git status", W, "sets HOME", False), ("XDG_CONFIG_HOME=x git log", W, "XDG_CONFIG_HOME", False),
    # C: options of (otherwise) read-only programs that run a program
    ("sort --compress-program=sh x", W, "--compress-program", False), ("rg --pre ./x y", W, "rg --pre", False),
    ("rg --hostname-bin=./x y", W, "--hostname-bin", False), ("man -P 'rm x' ls", W, "man -P", False),
    ("less '+!rm x' f", W, "+COMMAND", False), ("fd -x rm", W, "fd -x", False),
    ("tar --to-command='rm x' -xf a.tar", W, "tar runs", False), ("tar -I ./x -xf a.tar", W, "tar runs", False),
    # the files they change are named inside them
    ("tar xf a.tar", W, "archive", False), ("unzip a.zip", W, "archive", False), ("patch -p1 < x.diff", W, "patch", False),
    ("git apply x.patch", W, "git apply", False), ("git config core.pager 'rm x'", W, "git config", False),
    # deleting or writing files the words do not show
    ("rm $(cat list.txt)", W, "come from an expansion", True), ("ls | xargs rm", W, "from its input", True),
    ("find . -exec rm {} +", W, "find or xargs", True), ("echo x > $f", W, "comes from an expansion", False),
    ("sed -i s/a/b/ $f", W, "come from an expansion", False),
    ("rm {a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{data/db,x}", W, "expansion", True),
    # transparent: the analysis sees all of it
    ("python3 -c \"import json,sys; print(json.load(sys.stdin)['x'])\"", W, NO, False),
    ("python3 -c 'print(1 + 2)'", W, NO, False), ("python3 -c 'import math; print(math.pi)'", W, NO, False),
    ("python3 -c 'from collections import Counter; print(Counter(\"aab\"))'", W, NO, False),
    ("perl -pi -e 's/foo/bar/g' a.txt", W, NO, False), ("perl -ne 'print if /x/' f", W, "perl code", False),
    ("awk '{print $1}' f", R, NO, False), ("sed -n 1p f", R, NO, False), ("sed -i s/a/b/ f", W, NO, False),
    ("sed 'r /etc/passwd' f", W, NO, False), ("git -c color.ui=always log", W, NO, False),
    ("git --no-pager log", R, NO, False), ("git -p log", W, NO, False), ("git --namespace=x log", W, NO, False),
    ("git help -w log", W, NO, False), ("git grep -n x", R, NO, False), ("git apply --check x.patch", W, NO, False),
    ("git config user.name me", W, NO, False), ("eval 'ls -la'", R, NO, False), ("sh -c 'ls \"$1\"' _ x", R, NO, False),
    ("bash -c 'for f in *; do wc -l \"$f\"; done'", R, NO, False), ("x=1; echo $x", R, NO, False),
    ("COUNT=$(wc -l < f); echo $COUNT", R, NO, False), ("LANG=C sort x", R, NO, False), ("bash script.sh", W, NO, False),
    ("python3 script.py", W, NO, False), ("python3 -m json.tool a.json", W, NO, False), ("python3 --version", R, NO, False),
    ("tar czf a.tgz src", W, NO, False), ("unzip -l a.zip", W, NO, False), ("[ -d src ]", R, NO, False),
    ("[[ -f x ]] && echo yes", R, NO, False), ("trap 'rm -f data/db' EXIT", W, NO, True),
    ("bash -o pipefail -c 'rm x'", W, NO, True), ("{rm,-rf,data}", W, NO, True), ("echo {1..3}", R, NO, False),
    ("ls | xargs grep -n x", R, NO, False),
    ("PYTHONUNBUFFERED=1 python3 x.py", W, NO, False), ("GIT_AUTHOR_DATE=2020-01-01 git commit -m x", W, NO, False),
    ("PYTHONBREAKPOINT=x python3 x.py", W, "PYTHONBREAKPOINT", False), ("GIT_TRACE=/tmp/x git status", W, "GIT_TRACE", False), ("find . -name x", R, NO, False), ("rm \"$HOME/x\"", W, NO, True),
]


def test_opaque_table_is_unique() -> None:
    commands = [c for c, *_ in OPAQUE]
    assert len(set(commands)) == len(commands) >= 150


@pytest.mark.parametrize("command,read_only,opaque,destructive", OPAQUE, ids=[c for c, *_ in OPAQUE])
def test_opaque_facts(command: str, read_only: bool, opaque: str | None, destructive: bool) -> None:
    a = analyze(command)
    assert a.parsed, a.error
    assert (a.read_only, a.destructive) == (read_only, destructive), (a.units, a.destructive_reasons)
    if opaque is None:
        assert a.opaque_reasons == [], a.opaque_reasons
    else:
        assert any(opaque in r for r in a.opaque_reasons), a.opaque_reasons
        assert not a.read_only and any(u.opaque and not u.read_only for u in a.units)
