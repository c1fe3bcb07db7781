"""The TRL trainer API that distill/training.py builds on, checked against the installed TRL: its
dynamic sampling overrides GRPOTrainer's private ``_generate_and_score_completions(inputs)`` and
reads ``_metrics``, ``num_generations`` and the batch's ``advantages``; SFT sets the switch
``trl.trainer.utils._use_triton`` that makes the fused LM head score labelled positions only. When
TRL moves any of these, this fails first, naming what moved (pyproject pins TRL below the next minor release)."""

import inspect

import pytest

from tests.helpers.paths import ROOT

trl = pytest.importorskip("trl", reason="the distill extra is not installed")


def test_the_grpo_trainer_still_has_what_dynamic_sampling_overrides():
    from trl import GRPOTrainer

    method = getattr(GRPOTrainer, "_generate_and_score_completions", None)
    assert method is not None, f"trl {trl.__version__}: GRPOTrainer._generate_and_score_completions is gone"
    assert list(inspect.signature(method).parameters) == ["self", "inputs"], inspect.signature(method)
    source = inspect.getsource(GRPOTrainer)
    for name in ("self._metrics", "self.num_generations", '"advantages"'):
        assert name in source, f"trl {trl.__version__}: GRPOTrainer no longer uses {name}"


def test_the_installed_trl_is_inside_the_pinned_range():
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    pinned = [r for extra in ("distill", "gpu") for r in project["optional-dependencies"][extra] if r.startswith("trl")]
    major, minor = (int(x) for x in trl.__version__.split(".")[:2])
    assert pinned and all("<1.17" in r for r in pinned) and (major, minor) < (1, 17), (pinned, trl.__version__)


def test_sfts_fused_head_reads_the_switch_sft_sets_in_one_place():
    from trl.trainer import utils

    assert callable(getattr(utils, "_use_triton", None)), f"trl {trl.__version__}: trainer.utils._use_triton is gone"
    reads = [line.strip() for line in inspect.getsource(utils).splitlines() if "_use_triton(" in line]
    assert reads == ["compact = _use_triton(hidden_states.device)"], reads
