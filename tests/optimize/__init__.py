"""promptmem.optimize: GEPA, the proposer, windows, demonstrations, tune."""
