"""The masked writer (``machinery/masking/written.py``): JSON lines, appends, the debug log's formatter."""

from __future__ import annotations

import json
import logging
from pathlib import Path

from axon_cli.machinery.masking.written import MaskingFormatter, append_lines, masked_line, masked_value

TOKEN = "ghp_" + "Qw3Er5Ty7Ui9Op1As3Df5Gh7Jk9Lz1Xc3Vb5"


def test_every_string_of_a_record_is_masked_and_the_line_stays_json() -> None:
    record = {"prompt": f'say "{TOKEN}"', TOKEN: ["url http://u:pw1234@h/x", 3, None], "n": 1.5}
    line = masked_line(record)
    assert TOKEN not in line and "pw1234" not in line
    back = json.loads(line)
    assert back["prompt"] == 'say "[REDACTED]"' and back["[REDACTED]"][0] == "url http://***@h/x"
    assert back["n"] == 1.5 and masked_value(back) == back                          # idempotent


def test_append_lines_appends_whole_lines_and_creates_an_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    append_lines(path, [])
    assert path.read_bytes() == b""
    append_lines(path, [masked_line({"a": "\udc80"}), masked_line({"b": 2})], sync=True)
    append_lines(path, [masked_line({"c": 3})])
    assert [json.loads(x) for x in path.read_text().splitlines()] == [{"a": "\udc80"}, {"b": 2}, {"c": 3}]
    assert path.stat().st_mode & 0o777 == 0o600


def test_the_log_formatter_masks_arguments_and_tracebacks(tmp_path: Path) -> None:
    logger = logging.getLogger("axon.test-written")
    handler = logging.FileHandler(tmp_path / "debug.log")
    handler.setFormatter(MaskingFormatter("%(levelname)s %(message)s"))
    logger.addHandler(handler)
    try:
        logger.warning("endpoint %s", "http://user:SECRETPASS@127.0.0.1:9/v1")
        try:
            raise ValueError(f"bad {TOKEN}")
        except ValueError:
            logger.exception("failed")
    finally:
        logger.removeHandler(handler)
        handler.close()
    text = (tmp_path / "debug.log").read_text()
    assert "http://***@127.0.0.1:9/v1" in text and "ValueError: bad [REDACTED]" in text
    assert "SECRETPASS" not in text and TOKEN not in text
