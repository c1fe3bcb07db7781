"""Optuna tuning with a scripted LM: trials run real evaluations and the study resumes."""

import json

from promptmem.lm.specs import LMConfig
from promptmem.optimize.tune import TuneConfig, tune
from tests.helpers.scripted import scripted_lm, typed_ops

CONFIG = TuneConfig(trials=3, streams=1, tasks=6, budgets=(50, 800), top_ks=(0, 2), writers=("ops",))


def test_study_runs_trials_and_resumes(tmp_path):
    lm = scripted_lm("3000", {"operations": typed_ops("ADD billing-api listens on port 3000")})
    best = tune(CONFIG, LMConfig(spec="dummy/x"), LMConfig(spec="dummy/r"), tmp_path, lm=lm)
    assert best["trials"] == 3 and set(best["params"]) == {"notes_budget", "top_k", "writer"}
    assert json.loads((tmp_path / "best.json").read_text()) == best
    for trial in range(3):
        assert (tmp_path / "trials" / str(trial) / "eval" / "report.json").exists()
    again = tune(CONFIG, LMConfig(spec="dummy/x"), LMConfig(spec="dummy/r"), tmp_path, lm=lm)
    assert again["trials"] == 6  # the study in OUT/study.db kept the first three
