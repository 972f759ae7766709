"""One conversation over time: transcript (JSONL), hooks into the agent (turn boundaries for the
snapshots behind /undo), compaction, the system-prompt context and cost."""
