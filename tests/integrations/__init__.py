"""promptmem.integrations: the real mem0 and the verifiers export."""
