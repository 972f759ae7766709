"""One conversation over time: transcript (JSONL), callbacks into the agent (turn boundaries for the
snapshots behind /undo), compaction, the system-prompt context and cost."""
