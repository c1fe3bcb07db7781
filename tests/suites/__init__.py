"""promptmem.suites: synthetic, JSONL, LoCoMo, the generated worlds, hostile input, evidence."""
