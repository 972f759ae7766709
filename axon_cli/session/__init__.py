"""One conversation over time: transcript (JSONL), callbacks into the agent, checkpoints for /undo,
compaction, the system-prompt context and cost."""
