"""GEPA's examples for ``optimize``: the streams split into train, val and held-out test, and
the windows cut from the train and val streams (``windows.cut_windows``), warm started or not."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from promptmem.optimize.windows import cut_windows
from promptmem.suites import SuiteOptions, build_suite, suite_type
from promptmem.tasks import Stream, Suite

if TYPE_CHECKING:
    from promptmem.optimize.gepa import OptimizeConfig


def split_streams(config: OptimizeConfig) -> tuple[Suite, list[Stream], list[Stream], dict]:
    """The suite whose streams the GEPA examples come from, the train and val streams the
    windows are cut from, and the split as written to ``split.json``. A generated suite:
    streams of ``stream_tasks`` (train seed, val seed+1, held-out test seed+2). A suite
    ``from_file``: the first ``train_streams``, the next ``val_streams``, then ``test_streams``
    held out;
    a file holding fewer streams than that is a ValueError."""
    if not suite_type(config.suite).from_file:
        suite = build_suite(config.suite, SuiteOptions(tasks=config.stream_tasks or config.test_tasks))
        train = suite.streams(config.train_streams, seed=config.seed)
        val = suite.streams(config.val_streams, seed=config.seed + 1)
        seeds = {"train_seed": config.seed, "val_seed": config.seed + 1, "test_seed": config.seed + 2}
        return suite, train, val, {**seeds, "train": [s.id for s in train], "val": [s.id for s in val]}
    suite = build_suite(config.suite, SuiteOptions(data=config.data))
    wanted = config.train_streams + config.val_streams + config.test_streams
    streams = suite.streams(wanted)
    if len(streams) < wanted:
        raise ValueError(
            f"{config.data} holds {len(streams)} streams; optimize needs {wanted} disjoint ones "
            f"(--train-streams {config.train_streams} --val-streams {config.val_streams} "
            f"--test-streams {config.test_streams}): lower them or add streams"
        )
    train, val = streams[: config.train_streams], streams[config.train_streams : wanted - config.test_streams]
    split = {
        "train": [s.id for s in train],
        "val": [s.id for s in val],
        "test": [s.id for s in streams[len(train) + len(val) :]],
    }
    return suite, train, val, split


def gepa_examples(
    config: OptimizeConfig, agent, suite: Suite, budget: int, train, val, out: Path
) -> tuple[list, list, dict]:
    """Train and val examples: windows of ``config.window`` tasks cut from the streams, warm
    started from the seed program's notes (``warm_start="seed"``; computed once, kept under
    ``out/warm/``) or from no notes; and what ``split.json`` records of them."""
    reference = agent if config.warm_start == "seed" else None
    act = config.objective != "recall"
    cut = {
        name: cut_windows(
            streams, config.window, suite=suite, budget=budget, reference=reference, cache=out / "warm" / name, act=act
        )
        for name, streams in (("train", train), ("val", val))
    }
    info = {
        "window": config.window,
        "warm_start": config.warm_start,
        **{f"{name}_windows": len(ws) for name, ws in cut.items()},
        # each window: [id, position in its stream, characters of notes it starts with]
        "windows": {
            name: [[w.stream.id, w.position, sum(len(n.text) for n in w.notes)] for w in ws] for name, ws in cut.items()
        },
    }
    return [w.example() for w in cut["train"]], [w.example() for w in cut["val"]], info
