"""Other projects promptmem runs with: mem0 as a memory peer, verifiers (prime-rl) as an
environment export."""
