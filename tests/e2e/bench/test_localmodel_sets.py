"""bench/localmodel's two chore sets (issue 24): the development set and the frozen test set.

Every chore of both sets: a hand-made correct outcome solves it, doing nothing does not, deleting a
file it never asked about does not; every test chore (and every new dev move/multi chore) also has a
hand-made near miss that is not solved (deleting webhook.py for "remove the debug print from
webhook.py", a copy for a move, a rename of the definition only, a neighbouring value). The sets' sizes
and kinds are asserted, and the test set shares no file name, value or identifier with the dev set.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable

import pytest

from tests.e2e.bench.test_localmodel_bench import REFERENCE, _add, _all, _drop, _everywhere, _mv, _same, _sub
from tests.e2e.bench.test_localmodel_bench import chores as lb

testset_run = sys.modules["testset_run"]        # bench/localmodel, loaded by the import above

Change = Callable[[dict[str, str]], dict[str, str]]


def _cp(old: str, new: str) -> Change:
    """A copy where a move was asked: the new path right, the old one still there."""
    return lambda f: {**f, new: f[old]}


_ENV = "SAFFRON_DB_URL=\nSAFFRON_TOKEN_TTL=\nSAFFRON_QUEUE_NAME=\n"
_KEBAB = "def to_kebab(s):\n    return '-'.join(s.lower().split())\n"
_NO_FAX = "name,email,city\nIlse Varga,ilse@example.invalid,Pecs\nTomas Rhee,tomas@example.invalid,Busan\n" \
          "Noor Haddad,noor@example.invalid,Irbid\n"
_FETCH = ("store/query.py", "store/export.py", "store/audit.py")
_SPOOL = ("spool/writer.py", "spool/defaults.py", "test_spool.py")

# A hand-made correct outcome per test chore (files after, answer).
TEST_REFERENCE: dict[str, tuple[Change, str]] = {
    "t_ask_default_retries": (_same, "retries defaults to 17 (load_settings in petrel/loader.py)."),
    "t_ask_env_var": (_same, "`KESTREL_SCRATCH_ROOT` (see kestrel/paths.py)"),
    "t_ask_where_defined": (_same, "In harbor/almanac/tides.py."),
    "t_ask_count_matching_rows": (_same, "8 stations are offline."),
    "t_ask_container_port": (_same, "6173 (EXPOSE 6173)"),
    "t_ask_value_in_code": (_same, "BATCH_CEILING = 1536 in ingest/bounds.py"),
    "t_ask_exit_code": (_same, "It exits with 41."),
    "t_edit_remove_debug_print": (_sub("webhook.py", "    print('DEBUG payload:', payload)\n", ""), "removed"),
    "t_edit_delete_line": (_sub("portal.toml", "allow_guest = true\n", ""), "deleted the line"),
    "t_edit_drop_column": (_add("data.csv", _NO_FAX), "dropped fax"),
    "t_edit_bump_patch": (_sub("setup.cfg", "version = 0.13.7", "version = 0.13.8"), "0.13.8"),
    "t_edit_unnamed_config": (_sub("settings/heron.conf", "worker_timeout = 30", "worker_timeout = 475"), "done"),
    "t_edit_fix_leap_year": (_sub("calutil.py", "return year % 4 == 0",
                                  "return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)"), "fixed"),
    "t_create_env_example": (_add(".env.example", _ENV), "created"),
    "t_create_value_from_code": (_add("page_size.txt", "137\n"), "137"),
    "t_create_function": (_add("textcase.py", _KEBAB), "added"),
    "t_create_json": (_add("config/juniper.json", '{\n  "mode": "batch",\n  "threads": 7\n}\n'), "created"),
    "t_create_in_subfolder": (_add("docs/adr/0007-outbox-in-sqlite.md", "# 7. Keep the outbox in SQLite\n"), "ok"),
    "t_delete_folder": (_all(_drop("old_migrations/0001_init.sql"), _drop("old_migrations/0002_idx.sql")), "gone"),
    "t_delete_by_pattern": (_all(_drop("src/quarry/cut.py.orig"), _drop("docs/quarry.md.orig")), "deleted 2"),
    "t_delete_short": (_drop("marigold_backup.sql"), "removed"),
    "t_delete_empty_file": (_drop("src/granite/unused_helpers.py"), "deleted src/granite/unused_helpers.py"),
    "t_delete_lookalike": (_drop("reports/2026-q3-draft.md"), "deleted the draft"),
    "t_move_rename_file": (_mv("scripts/cleanup_logs.py", "scripts/prune_logs.py"), "renamed"),
    "t_move_into_docs": (_mv("standup-notes.md", "docs/standup-notes.md"), "moved"),
    "t_move_folder": (_mv("samples", "examples"), "renamed"),
    "t_move_typo": (_mv("bittern.sample.ini", "etc/bittern.sample.ini"), "moved"),
    "t_move_extension": (_mv("CHANGES.txt", "CHANGES.md"), "renamed"),
    "t_multi_rename_function": (_everywhere(_FETCH, "fetch_rows", "load_rows"), "renamed in 3 files"),
    "t_multi_constant_and_test": (_everywhere(("chunker.py", "test_chunker.py"), "1280", "3072"), "done"),
    "t_multi_rename_class": (_everywhere(_SPOOL, "SpoolWriter", "SpoolSink"), "done"),
    "t_multi_config_key": (_all(_sub("warehouse.toml", "db_host =", "host ="),
                                _sub("warehouse_db.py", "DB['db_host']", "DB['host']")), "done"),
    "t_multi_move_and_import": (_all(_mv("slugs.py", "util/slugs.py"),
                                     _sub("banner.py", "from slugs import", "from util.slugs import")), "moved"),
    "t_run_report_output": (_same, f"It prints {testset_run.DIGEST}."),
    "t_run_count_failures": (_same, "7 of the 10 tests fail."),
    "t_run_lint_and_fix": (_sub("pelican/nest.py", "def nest", "# SPDX-License-Identifier: MIT\ndef nest"), "fixed"),
    "t_run_save_output": (_add("tally.txt", testset_run.TALLY + "\n"), "saved"),
    "t_run_fix_failing_test": (_sub("rounding.py", "int(amount * 100)", "round(amount * 100)"), "fixed"),
}

# A hand-made near miss per test chore (and per new dev move/multi chore): plausible, and wrong.
NEAR_MISS: dict[str, tuple[Change, str]] = {
    "t_ask_default_retries": (_same, "It defaults to 640."),
    "t_ask_env_var": (_same, "KESTREL_LOGS_AT"),
    "t_ask_where_defined": (_same, "harbor/charts.py"),
    "t_ask_count_matching_rows": (_same, "31 stations."),
    "t_ask_container_port": (_same, "18443"),
    "t_ask_value_in_code": (_same, "FIELD_LIMIT is 257"),
    "t_ask_exit_code": (_same, "It exits with 1."),
    "t_edit_remove_debug_print": (_drop("webhook.py"), "removed webhook.py"),
    "t_edit_delete_line": (_drop("portal.toml"), "deleted"),
    "t_edit_drop_column": (_sub("data.csv", "name,email,fax,city", "name,email,city"), "dropped"),
    "t_edit_bump_patch": (_sub("setup.cfg", "0.13.7", "0.14.0"), "bumped"),
    "t_edit_unnamed_config": (_add("config.toml", "worker_timeout = 475\n"), "set"),
    "t_edit_fix_leap_year": (_sub("calutil.py", "year % 4 == 0", "year % 4 == 0 and year % 100 != 0"), "fixed"),
    "t_create_env_example": (_add(".env.example", "SAFFRON_DB_URL=\nSAFFRON_TOKEN_TTL=\n"), "created"),
    "t_create_value_from_code": (_add("page_size.txt", "1000\n"), "done"),
    "t_create_function": (_add("textcase.py", "def to_kebab(s):\n    return '-'.join(s.lower().split(' '))\n"), "ok"),
    "t_create_json": (_add("config/juniper.json", '{"mode": "batch", "threads": "7"}\n'), "created"),
    "t_create_in_subfolder": (_add("0007-outbox-in-sqlite.md", "# 7. Keep the outbox in SQLite\n"), "ok"),
    "t_delete_folder": (_drop("old_migrations/0001_init.sql"), "deleted"),
    "t_delete_by_pattern": (_all(_drop("src/quarry/cut.py.orig"), _drop("docs/quarry.md.orig"),
                                 _drop("notes.original")), "deleted 3"),
    "t_delete_short": (_add("marigold_backup.sql", ""), "emptied"),
    "t_delete_empty_file": (_all(*(_drop(p) for p in ("src/granite/core.py", "src/granite/unused_helpers.py",
                                                        "src/granite/io.py"))), "deleted"),
    "t_delete_lookalike": (_all(_drop("reports/2026-q3-draft.md"), _drop("reports/2026-q3-final.md")), "deleted"),
    "t_move_rename_file": (_cp("scripts/cleanup_logs.py", "scripts/prune_logs.py"), "copied"),
    "t_move_into_docs": (_all(_mv("standup-notes.md", "docs/standup-notes.md"),
                              _sub("docs/standup-notes.md", "- Ana", "* Ana")), "moved"),
    "t_move_folder": (_all(_mv("samples/basic.toml", "examples/basic.toml"),
                           _mv("samples/full.toml", "examples/full.toml")), "moved"),
    "t_move_typo": (_mv("bittern.sample.ini", "etc/bittern.ini"), "moved"),
    "t_move_extension": (_all(_mv("CHANGES.txt", "CHANGES.md"), _sub("CHANGES.md", "v2.4.0", "## v2.4.0")), "ok"),
    "t_multi_rename_function": (_everywhere(("store/query.py",), "fetch_rows", "load_rows"), "renamed"),
    "t_multi_constant_and_test": (_sub("chunker.py", "= 1280", "= 3072"), "changed"),
    "t_multi_rename_class": (_everywhere(_SPOOL[:2], "SpoolWriter", "SpoolSink"), "renamed"),
    "t_multi_config_key": (_sub("warehouse.toml", "db_host =", "host ="), "renamed"),
    "t_multi_move_and_import": (_mv("slugs.py", "util/slugs.py"), "moved"),
    "t_run_report_output": (_same, "It prints 52154."),
    "t_run_count_failures": (_same, "3 tests fail."),
    "t_run_lint_and_fix": (_drop("pelican/nest.py"), "the lint passes now"),
    "t_run_save_output": (_add("tally.txt", "1384\n"), "saved"),
    "t_run_fix_failing_test": (_sub("test_rounding.py", "to_cents(0.29), 29)", "to_cents(0.29), 28)"), "fixed"),
    "move_rename_file": (_cp("draft_plan.txt", "plan.txt"), "copied"),
    "move_into_folder": (_all(_mv("csvtools.py", "lib/csvtools.py"), _drop("lib/dates.py")), "moved"),
    "move_folder": (_mv("img/logo.svg", "images/logo.svg"), "moved"),
    "multi_rename_function": (_everywhere(("totals.py",), "get_total", "compute_total"), "renamed"),
    "multi_constant_and_test": (_sub("test_paging.py", "(PAGE_LIMIT, 50)", "(PAGE_LIMIT, 75)"), "done"),
    "multi_rename_config_key": (_sub("mail.ini", "smtp_server", "smtp_host"), "renamed"),
}

ALL = [*lb.CHORES, *lb.TEST_CHORES]


def _reference(chore: lb.Chore) -> tuple[Change, str]:
    return (REFERENCE if chore.name in REFERENCE else TEST_REFERENCE)[chore.name]


def test_set_sizes_and_kinds() -> None:
    dev, test = lb.CHORES, lb.TEST_CHORES
    assert len(dev) >= 33 and len(test) >= 36
    assert all(sum(c.kind == k for c in test) >= 4 for k in lb.KINDS)
    assert sum(c.kind == "move" for c in dev) >= 3 and sum(c.kind == "multi" for c in dev) >= 3
    assert all(1 <= c.steps <= 3 for c in test)
    assert len({c.name for c in ALL}) == len(ALL) and set(lb.BY_NAME) == {c.name for c in ALL}
    assert set(TEST_REFERENCE) == {c.name for c in test} and set(REFERENCE) == {c.name for c in dev}
    assert {c.name for c in test} <= set(NEAR_MISS)


def _names(chores_: list[lb.Chore]) -> set[str]:
    return {p.rsplit("/", 1)[-1] for c in chores_ for p in c.files}


def _numbers(chores_: list[lb.Chore]) -> set[str]:
    """Numbers of three or more digits in tasks and fixtures (100 is arithmetic: cents, centuries, percent)."""
    text = " ".join(c.task + " " + " ".join(c.files.values()) for c in chores_)
    return set(re.findall(r"(?<![\w.])\d{3,}(?:\.\d+)*(?![\w])", text)) - {"100"}


_DEFINED = re.compile(r"(?:def|class)\s+(\w+)|^([A-Z][A-Z0-9_]{3,})\s*=", re.M)


def _identifiers(chores_: list[lb.Chore]) -> set[str]:
    """Functions, classes and module constants the fixtures define."""
    text = "\n".join(t for c in chores_ for t in c.files.values())
    return {m.group(1) or m.group(2) for m in _DEFINED.finditer(text)} - {"__init__"}


def test_test_set_shares_no_file_name_value_or_identifier_with_dev() -> None:
    assert _names(lb.TEST_CHORES) & _names(lb.CHORES) == {"README.md"}
    assert not _numbers(lb.TEST_CHORES) & _numbers(lb.CHORES)
    assert not _identifiers(lb.TEST_CHORES) & _identifiers(lb.CHORES)


@pytest.mark.parametrize("chore", lb.TEST_CHORES, ids=lambda c: c.name)
def test_test_chore_reference_solves_and_nothing_does_not(chore: lb.Chore) -> None:
    change, answer = TEST_REFERENCE[chore.name]
    assert chore.check(change(dict(chore.files)), answer)
    assert not chore.check(dict(chore.files), "") and not chore.check(dict(chore.files), "Done.")


@pytest.mark.parametrize("chore", ALL, ids=lambda c: c.name)
def test_deleting_a_file_not_asked_about_is_not_solved(chore: lb.Chore) -> None:
    change, answer = _reference(chore)
    after = change(dict(chore.files))
    untouched = sorted(p for p, t in chore.files.items() if after.get(p) == t)
    assert untouched, chore.name
    assert not chore.check({k: v for k, v in after.items() if k != untouched[-1]}, answer)


@pytest.mark.parametrize("name", sorted(NEAR_MISS))
def test_near_miss_is_not_solved(name: str) -> None:
    chore = lb.BY_NAME[name]
    change, answer = NEAR_MISS[name]
    after = change(dict(chore.files))
    assert after != chore.files or answer
    assert not chore.check(after, answer)


def test_set_option_picks_the_chores_and_defaults_to_dev() -> None:
    from tests.e2e.bench.test_localmodel_bench import lb_run

    base = ["--base-url", "http://127.0.0.1:9/v1", "--model", "m"]
    assert lb_run.parse_args(base).chore_set == "dev"
    assert lb.chores_of("dev") == lb.CHORES and lb.chores_of("test") == lb.TEST_CHORES
    assert lb.chores_of("all") == ALL
    assert lb_run.parse_args([*base, "--only", "t_ask_exit_code", "ask_ini_value"]).only == ["t_ask_exit_code",
                                                                                            "ask_ini_value"]
    with pytest.raises(SystemExit):
        lb_run.parse_args([*base, "--set", "train"])


def _runs(set_name: str, per_rep: list[int], n: int) -> list[dict]:
    return [{"config": "none", "rep": rep, "set": set_name, "chore": f"{set_name}{i}", "kind": "edit",
             "solved": i < solved, "turns": 3, "seconds": 2.0, "timed_out": False}
            for rep, solved in enumerate(per_rep, 1) for i in range(n)]


def test_summary_per_set_and_the_dev_test_row() -> None:
    import summary

    meta = {"chores": ["x"] * 7, "sets": {"dev": ["d"] * 3, "test": ["t"] * 4}}
    by_set = summary.summarize_sets([*_runs("dev", [2, 3], 3), *_runs("test", [1, 1], 4)], meta)
    assert by_set["dev"]["none"]["per_rep"] == [2, 3] and by_set["test"]["none"]["per_rep"] == [1, 1]
    assert by_set["test"]["none"]["by_kind"] == {"edit": "2/8"}
    report = summary.format_report(by_set, meta)
    assert "dev set (of 3 chores)" in report and "test set (of 4 chores)" in report
    assert "| none | 2.5 ± 0.7 of 3 (2, 3) | 1.0 ± 0.0 of 4 (1, 1) |" in report
    old = summary.summarize_sets(_runs("dev", [1], 3), {"chores": ["a", "b", "c"]})    # a file from before the sets
    assert list(old) == ["dev"] and "dev | test" not in summary.format_report(old, {"chores": ["a", "b", "c"]})


def test_a_test_chore_runs_and_its_record_carries_its_set(tmp_path) -> None:
    from tests.e2e.bench.test_localmodel_bench import bench
    from tests.fakeserver import text_reply, tool_reply

    replies = [tool_reply(("read_file", {"path": "ingest/bounds.py"})),
               text_reply("The importer accepts at most 1536 rows (BATCH_CEILING).")]
    data, _ = bench(tmp_path, "t_ask_value_in_code", "none", replies)
    run = data["runs"][0]
    assert run["solved"] and run["set"] == "test", run
    assert data["meta"]["sets"] == {"dev": [], "test": ["t_ask_value_in_code"]}
    assert data["by_set"]["test"]["none"]["per_rep"] == [1] and "dev" not in data["by_set"]


@pytest.mark.parametrize("chore", [c for c in lb.TEST_CHORES if c.kind in ("edit", "create", "delete", "move",
                                                                         "multi")], ids=lambda c: c.name)
def test_a_stray_new_file_beside_the_change_is_not_solved(chore: lb.Chore) -> None:
    change, answer = TEST_REFERENCE[chore.name]
    after = change(dict(chore.files))
    assert not chore.check({**after, "scratch.bak": "leftover\n"}, answer)


def test_a_removed_line_may_leave_a_blank_line() -> None:
    chore = lb.BY_NAME["t_edit_remove_debug_print"]
    blanked = _sub("webhook.py", "    print('DEBUG payload:', payload)\n", "    \n")(dict(chore.files))
    assert chore.check(blanked, "removed")
    assert not chore.check(_sub("webhook.py", "print('DEBUG payload:', payload)", "pass")(dict(chore.files)), "ok")
