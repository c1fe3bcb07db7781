"""The learning tables: GEPA runs (comparisons, proposals, instructions), window fidelity
and distillation (``docs/optimize.md``, ``docs/distill.md``, ``docs/results.md``)."""

from __future__ import annotations

from benchmarks import RESULTS
from benchmarks.tables.common import cell, first, gain, load, maybe, table
from promptmem.report.comparison import labelled_pairs, paired_table


def optimize(name: str = "optimize") -> str:
    data = load(name)
    config = data["config"]
    labels = {"seed": "seed", "optimized": f"GEPA, {config['objective']} objective, {data['metric_calls']} calls"}
    return table(
        ["program", "held-out score", "per stream", "memory gain", "notes recall", "tokens/task", "s/task"],
        [
            [
                labels[k],
                f"{t['score']:.3f}",
                " / ".join(f"{v:.2f}" for v in t["per_stream"].values()),
                gain(t["memory_gain"]),
                maybe(t.get("notes_recall")),
                f"{t['tokens_per_task']:.0f}",
                f"{t['seconds_per_task']:.1f}",
            ]
            for k, t in data["test"].items()
        ],
    )


def held(row: dict) -> str:
    """Where the misses are: questions whose notes held the answer, of those with evidence, and
    the actor's score on them."""
    split = row.get("held")
    if not split:
        return "–"
    return f"{split['held']} / {split['held'] + split['missed']} → {maybe(split['score_when_held'])}"


def comparison(name: str, key: str = "rows") -> str:
    """A side-by-side comparison's rows (``key`` of the file: ``rows``, or ``test`` of a GEPA
    run; files that record it add where the misses are), then every pair's paired statistics."""
    rows = load(name)[key]
    split = any("held" in r for r in rows.values())
    scores = table(
        ["program", "held-out score", "notes recall", *(["notes held the answer → actor score"] * split), "s/task"],
        [
            [
                k,
                f"{r['score']:.3f}",
                maybe(r.get("notes_recall")),
                *([held(r)] * split),
                f"{r['seconds_per_task']:.1f}",
            ]
            for k, r in rows.items()
        ],
    )
    pairs = labelled_pairs(rows)
    return scores + ("\n" + paired_table(pairs) if pairs else "")


def proposals(name: str) -> str:
    """A GEPA run's proposal report: rules made, distinct, rejected (by reason, one example
    each), tried and accepted."""
    report = load(name)["proposals"]
    rows = [["made", str(report["made"]), ""], ["distinct", str(report["distinct"]), ""]]
    rows += [[f"rejected: {reason}", str(r["count"]), first(r["examples"])] for reason, r in report["rejected"].items()]
    rows.append(["tried (cost metric calls)", str(report["tried"]), first(report["tried_examples"])])
    rows.append(["accepted (in a candidate GEPA kept)", str(len(report["accepted"])), first(report["accepted"])])
    return table(["proposals", "count", "example"], rows)


def instructions(name: str) -> str:
    """A GEPA run's seed instructions beside the optimized ones, per predictor (rules appended
    to the seed are shown alone)."""
    data = load(name)
    seed, optimized = data["seed_instructions"], data["optimized_instructions"]

    def change(before: str, after: str) -> str:
        if after == before:
            return "(unchanged)"
        return "the seed, then: " + cell(after[len(before) :]) if after.startswith(before) else cell(after)

    return table(["predictor", "seed", "optimized"], [[k, cell(v), change(v, optimized[k])] for k, v in seed.items()])


def instruction_ceiling(name: str) -> str:
    """Each writer instruction's notes recall on an optimize run's validation windows, with the
    windows it did better and worse on than the seed."""
    rows = load(name)["rows"]
    return table(
        ["writer instructions", "validation windows: notes recall", "windows better / worse than the seed"],
        [
            [
                label,
                f"{r['val_recall']:.3f}",
                "–" if label == "seed" else f"{r['better_windows']} / {r['worse_windows']}",
            ]
            for label, r in rows.items()
        ],
    )


def window_fidelity() -> str:
    """Each program's score and notes recall on full streams, cold windows and warm windows."""
    data = load("window_fidelity")
    ways = ("stream", "cold", "warm")
    rows = [
        [label, *(f"{r[w]['score']:.3f} / {maybe(r[w]['notes_recall'])}" for w in ways)]
        for label, r in data["rows"].items()
    ]
    fid = data["fidelity"]
    rows.append(
        [
            "largest score gap to the stream; Spearman",
            "–",
            *(f"{fid[w]['max_abs_gap']:.3f}; {maybe(fid[w]['spearman'])}" for w in ("cold", "warm")),
        ]
    )
    return table(["program", "full streams: score / recall", "cold windows", "warm windows"], rows)


def distill(name: str = "distill") -> str:
    data = load(name)
    teacher = data["comparison"]["teacher"]["score"]
    labels = {
        "teacher": f"teacher ({data['teacher_lm']['spec']})",
        "student": "student, teacher's prompts, untrained",
        "student+sft": "student + SFT",
        "student+grpo": "student + SFT + GRPO",
    }
    return table(
        ["model", "held-out score", "vs teacher", "memory gain", "notes recall", "tokens/task", "s/task"],
        [
            [
                labels.get(k, k),
                f"{c['score']:.3f}",
                f"{c['score'] / teacher:.2f}" if teacher else "–",
                gain(c["memory_gain"]),
                maybe(c.get("notes_recall")),
                f"{c['tokens_per_task']:.0f}",
                f"{c['seconds_per_task']:.1f}",
            ]
            for k, c in data["comparison"].items()
        ],
    )


def distill_paired(name: str) -> str:
    """A distill run's comparison, then each student's paired statistics against the teacher."""
    rows = load(name)["comparison"]
    return distill(name) + "\n" + paired_table(labelled_pairs(rows))


def distill_training(name: str = "distill") -> str:
    data = load(name)
    per_step = data["config"]["train"]["prompts_per_step"]
    return table(
        ["GRPO step", "mean reward", "reward std", "resamples", f"groups flat after resampling (of {per_step})"],
        [
            [
                str(p["step"]),
                f"{p['reward']:.2f}",
                f"{p['reward_std']:.2f}",
                f"{p.get('resamples', 0):.0f}",
                f"{p.get('skipped_groups', 0):.0f}",
            ]
            for p in data["grpo_rewards"]
        ],
    )


def distill_sampling() -> str:
    data = load("distill")
    return table(
        ["role", "trace rows", "rows sampled", "k", "mean reward, greedy → best of k", "pass@1", "pass@k"],
        [
            [
                role,
                str(r["rows"]),
                str(r["sampled"]),
                str(r["samples"]),
                f"{r['greedy_reward']:.3f} → {r['best_reward']:.3f}",
                f"{r['pass_at_1']:.3f}",
                f"{r['pass_at_k']:.3f}",
            ]
            for role, r in data["sampling"].items()
        ],
    )


def writer_choices(name: str) -> str:
    """``benchmarks/experiments/writer_choices.py``'s rows: what each select writer kept, judged in hindsight
    (files that record it: the tracked statements kept, and the tracked share of what was kept)."""
    rows = load(name)
    tracked = all(row.get("tracked_recall") is not None for row in rows.values())

    def of(recall, total) -> str:
        return f"{recall:.2f} of {total}" if recall is not None else "–"

    return table(
        [
            "writer",
            "writes",
            "statements shown / write",
            "kept / write",
            "needed ones kept",
            *(["tracked ones kept", "kept: tracked"] * tracked),
            "kept: needed / superseded / never",
        ],
        [
            [
                label,
                str(row["writes"]),
                f"{row['shown_per_write']:.1f}",
                f"{row['kept_per_write']:.1f}",
                of(row["write_recall"], row["needed_statements"]),
                *([of(row["tracked_recall"], row["tracked_statements"]), f"{row['kept_tracked']:.2f}"] * tracked),
                " / ".join(f"{row['kept'][k]:.2f}" for k in ("needed", "superseded", "never")),
            ]
            for label, row in rows.items()
        ],
    )


OWN_WORLDS = (  # the published runs before the CLI recorded them (Q8_0 rows by a session script), then every distill_own_*
    ("synthetic", "full", "distill_hindsight_synthetic_stated12", "recipes/synthetic_stated12.yaml"),
    ("household", "full", "distill_hindsight_household_stated12", "recipes/household_stated12.yaml"),
)


def own_worlds() -> list[dict]:
    """Each world's distilled 0.5B student (Q8_0) against its 1.5B teacher held out, in the worlds
    table's order (the published runs, then every ``distill_own_*`` file): ``world``,
    ``annotations``, the ``teacher`` and ``student`` rows, their ``paired`` statistics (student
    minus teacher) and what ``reproduce``s the run (notebook 02 plots these)."""
    worlds = []
    for world, annotated, name, recipe in OWN_WORLDS:
        run = load(name)
        student = run["student_q8_0"]
        worlds.append(
            {
                "world": world,
                "annotations": annotated,
                "teacher": run["comparison"]["teacher"],
                "student": student,
                "paired": student["paired_vs_teacher"],
                "reproduce": recipe,
            }
        )
    for path in sorted(RESULTS.glob("distill_own_*.json")):
        run = load(path.stem)
        worlds.append(
            {
                "world": run["world"],
                "annotations": run["annotations"],
                "teacher": run["comparison"]["teacher"],
                "student": run["comparison"][run["student"]],
                "paired": run["vs_teacher"],
                "reproduce": f"benchmarks/results/{path.name}",
            }
        )
    return worlds


def _world_row(w: dict) -> list[str]:
    teacher, student, paired = w["teacher"], w["student"], w["paired"]
    return [
        w["world"],
        w["annotations"],
        f"{teacher['score']:.3f}",
        f"{student['score']:.3f}",
        f"{paired['diff']:+.3f} [{paired['ci_low']:+.3f}, {paired['ci_high']:+.3f}]",
        f"{paired['wins']} / {paired['losses']}",
        f"{student['seconds_per_task']:.1f} / {teacher['seconds_per_task']:.1f}",
        w["reproduce"],
    ]


def distill_worlds() -> str:
    """Each world's distilled 0.5B student (Q8_0) against its 1.5B teacher held out, with how the
    training file was annotated and the recipe that reproduces it."""
    rows = [_world_row(w) for w in own_worlds()]
    header = [
        "world",
        "annotations",
        "teacher",
        "student",
        "student − teacher [95% CI]",
        "won / lost",
        "s/task (student / teacher)",
        "reproduce",
    ]
    return table(header, rows)
