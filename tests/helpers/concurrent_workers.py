"""Worker functions for the concurrency tests (module level, so spawned processes can import them)."""

from __future__ import annotations


def write_notes(path: str, who: str, count: int) -> None:
    """Apply ``count`` ADDs (and an UPDATE of the oldest note every tenth) to the store at ``path``."""
    from promptmem.memory import Op
    from promptmem.memory.sqlite import SQLiteStore

    store = SQLiteStore(path, budget=10**7, who=who)
    for i in range(count):
        store.apply([Op("ADD", f"{who} fact {i}"), Op("NOOP")], step=f"{who}-{i}")
        if i % 10 == 0:
            oldest = store.notes()[0]
            store.apply([Op("UPDATE", f"{oldest.text} (seen by {who} at {i})", oldest.id)], step=f"{who}-u{i}")


def tune_worker(out: str, trials: int) -> None:
    """Run ``trials`` trials of the shared study in ``out`` with a scripted LM."""
    from promptmem.lm.specs import LMConfig
    from promptmem.optimize.tune import TuneConfig, tune
    from tests.helpers.scripted import scripted_lm, typed_ops

    lm = scripted_lm("3000", {"operations": typed_ops("ADD billing-api listens on port 3000")})
    config = TuneConfig(trials=trials, streams=1, tasks=6, budgets=(50, 800), top_ks=(0, 2), writers=("ops",))
    tune(config, LMConfig(spec="dummy/x"), LMConfig(spec="dummy/r"), out, lm=lm)
