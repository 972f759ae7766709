"""Session transcripts: ``.axon/sessions/<id>.jsonl``, one masked message a line, appended as it happens."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

from axon_cli.state import ensure_state_dir
from axon_cli.tools.masking import mask

__all__ = ["Transcript", "new_session_id"]


def new_session_id() -> str:
    return time.strftime("%Y%m%d-%H%M%S-") + uuid.uuid4().hex[:6]


class Transcript:
    def __init__(self, state_dir: Path, session_id: str) -> None:
        self.state_dir = state_dir
        self.session_id = session_id
        self.path = state_dir / "sessions" / f"{session_id}.jsonl"

    def append(self, message: dict[str, Any]) -> None:
        ensure_state_dir(self.state_dir)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = mask(json.dumps(message, ensure_ascii=False))
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(line + "\n")
            fh.flush()
