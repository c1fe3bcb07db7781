"""The result tables of README.md and docs/*.md, rendered from benchmarks/results/*.json.

Each table sits in a page between ``<!-- results:NAME -->`` and ``<!-- /results -->``;
``python benchmarks/readme_tables.py`` rewrites those blocks from the results files, and
``tests/test_readme_tables.py`` fails when a block and its file disagree.

    python benchmarks/readme_tables.py            # rewrite the pages' tables
    python benchmarks/readme_tables.py --check    # exit 1 if any table is out of date
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from promptmem.report.comparison import labelled_pairs, paired_table

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
BLOCK = re.compile(r"(<!-- results:(?P<name>[\w-]+) -->\n)(?P<body>.*?)(<!-- /results -->)", re.DOTALL)


def load(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text())


def table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows]) + "\n"


def gain(x: float) -> str:
    return f"{x:+.3f}"


def maybe(x, fmt: str = "{:.3f}") -> str:
    return "–" if x is None else fmt.format(x)


def _recall_score(row: dict) -> str:
    return f"{row['breakdown']['question_type']['recall']['score']:.2f}"


SYNTHETIC_COLUMNS = {
    "model": lambda r: r["model"],
    "agent": lambda r: r["agent"],
    "score": lambda r: f"{r['score']:.3f}",
    "memory gain": lambda r: gain(r["memory_gain"]),
    "notes recall": lambda r: maybe(r.get("notes_recall")),
    "recall score": _recall_score,
    "tokens/task": lambda r: f"{r['tokens_per_task']:.0f}",
    "s/task": lambda r: f"{r['seconds_per_task']:.1f}",
    "failed writes": lambda r: str(r["write_failures"]),
    "rejected ops": lambda r: str(r["rejected_ops"]),
    "final notes (chars)": lambda r: f"{r['final_notes_chars']:.0f}",
}
HEADLINE_COLUMNS = ("model", "agent", "score", "memory gain", "notes recall", "s/task")


def synthetic(name: str, columns=tuple(SYNTHETIC_COLUMNS)):
    """The renderer of a synthetic-suite table from ``name``.json (``benchmarks/baseline.py``)."""
    return lambda: table(list(columns), [[SYNTHETIC_COLUMNS[c](r) for c in columns] for r in load(name)["rows"]])


KILL_TARGETS = {"eval": "`eval`", "locomo": "`eval` on a LoCoMo conversation (SQLite store)", "optimize": "`optimize`"}


def _kill_outcome(k: dict) -> str:
    text = f"{k['results_lost']} results lost; {k['equal_to_uninterrupted']}/{k['runs']} equal to an uninterrupted run"
    if "tasks_lost" in k:
        text += (
            f"; {k['tasks_lost']} of {k['tasks_started_before_kills']} started tasks lost "
            f"(at most {k['most_tasks_lost_by_one_kill']} per kill)"
        )
    return text


def _server_outcome(f: dict) -> str:
    if f["stopped"]:
        first = f"stopped: {f['stopped']}"
    else:
        first = f"{f['failed_calls']} failed call(s) counted, {f['unfinished_streams']} stream(s) left unfinished"
    return (
        f"{first}; {f['finished_streams']} finished before the rerun"
        + ("; the rerun finished it" if f["finished_after_rerun"] else "; the rerun did NOT finish it")
        + ("; API key in run dir" if f["key_in_run_dir"] else "; API key not in run dir")
    )


def faults() -> str:
    data = load("faults")
    rows = [
        [
            f"SIGKILL during {KILL_TARGETS[target]}, rerun",
            f"{k['runs']} runs, {k['killed']} killed mid-run",
            _kill_outcome(k),
        ]
        for target, k in data["kills"].items()
    ]
    rows += [
        [f"hosted LM server: `{fault}` ×3, then healthy", f"{f['requests']} requests", _server_outcome(f)]
        for fault, f in data["server_faults"].items()
    ]
    return table(["fault", "runs", "outcome"], rows)


def faults_inputs() -> str:
    data = load("faults")["inputs"]
    rows = [
        [r["case"], r["issue"], r["outcome"].replace("|", "\\|"), "yes" if r["handled"] else "**no**"]
        for r in data["rows"]
    ]
    rows.append(["**all cases**", "", f"{data['handled']} of {data['cases']} handled", ""])
    return table(["input", "issue #28 item", "outcome", "handled"], rows)


ENGINE_PATHS = {
    "shared": "one shared context (before)",
    "per-role": "one context per prompt family",
    "per-role + recall": "per family + `--objective recall` (writer alone)",
}


def hostile() -> str:
    return table(
        ["writer", "condition", "score", "kept vs clean", "notes recall", "attacked / cut", "DELETEs rejected"],
        [
            [
                r["writer"],
                r["condition"],
                f"{r['score']:.3f}",
                maybe(r["score_kept"], "{:.0%}"),
                maybe(r["notes_recall"]),
                f"{r['attacked']} / {r['observations_cut']}",
                str(r["deletes_rejected"]),
            ]
            for r in load("hostile")["rows"]
        ],
    )


def engine() -> str:
    rows = []
    for spec, model in load("engine")["models"].items():
        base = model["conditions"]["shared"]["seconds_per_call"]
        for key, label in ENGINE_PATHS.items():
            c = model["conditions"][key]
            rows.append(
                [
                    spec.partition(":")[2],
                    label,
                    f"{c['seconds_per_call']:.1f}",
                    f"{base / c['seconds_per_call']:.2f}×",
                    f"{c['prompt_tokens_processed_per_call']:.0f} / {c['prompt_tokens_reused_per_call']:.0f}",
                    f"{c['reused_share']:.0%}",
                    f"{c['calls_per_call']:.0f}",
                ]
            )
    return table(
        [
            "model",
            "path",
            "s per metric call",
            "speedup",
            "prompt tokens processed / reused per call",
            "reused share",
            "LM calls",
        ],
        rows,
    )


OVERSUBSCRIPTION_ROWS = {
    "alone": "alone",
    "beside another, shared cores": "beside another local model, both on every core",
    "beside another, a core each (--lm-threads 1)": "beside another, each pinned to a core of its own (`--lm-threads 1`)",
}


def oversubscription() -> str:
    """``engine.py --oversubscription``: one window alone, beside a rival process on shared
    cores, and with each on a core of its own."""
    rows = []
    for spec, data in load("engine")["oversubscription"].items():
        for key, row in data["rows"].items():
            shared = key == "beside another, shared cores"
            rows.append(
                [
                    spec.partition(":")[2],
                    f"{data['tasks']} tasks, {data['cpus']} CPUs",
                    OVERSUBSCRIPTION_ROWS[key],
                    f"{row['seconds']:.1f}",
                    f"{row['slowdown']:.2f}×",
                    row["identical_outputs"],
                    ("yes" if data["warned"] else "no") if shared else "–",
                ]
            )
    return table(["model", "window", "run", "seconds", "vs alone", "outputs equal to alone", "warned"], rows)


def grammar() -> str:
    return table(
        [
            "model",
            "ms per token, grammar over the whole vocabulary",
            "grammar on the top 256 first",
            "speedup",
            "same output",
        ],
        [
            [
                r["model"],
                f"{r['ms_per_token_full_grammar']:.1f}",
                f"{r['ms_per_token_top_k_grammar']:.1f}",
                f"{r['speedup']:.2f}×",
                r["same_output"],
            ]
            for r in load("grammar")["rows"]
        ],
    )


def store() -> str:
    return table(
        ["store", "notes", "ADD ops/s", "UPDATE ops/s", "DELETE ops/s", "retrieval p50 (ms)", "p95 (ms)"],
        [
            [
                r["store"],
                f"{r['notes']:,}",
                f"{r['add_ops_per_s']:,.0f}",
                f"{r['update_ops_per_s']:,.0f}",
                f"{r['delete_ops_per_s']:,.0f}",
                f"{r['retrieval_p50_ms']:.2f}",
                f"{r['retrieval_p95_ms']:.2f}",
            ]
            for r in load("store")["rows"]
        ],
    )


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


def comparison(name: str, key: str = "rows") -> str:
    """A side-by-side comparison's rows (``key`` of the file: ``rows``, or ``test`` of a GEPA
    run), then every pair's paired statistics."""
    rows = load(name)[key]
    scores = table(
        ["program", "held-out score", "notes recall", "s/task"],
        [
            [k, f"{r['score']:.3f}", maybe(r.get("notes_recall")), f"{r['seconds_per_task']:.1f}"]
            for k, r in rows.items()
        ],
    )
    return scores + "\n" + paired_table(labelled_pairs(rows))


def baseline_pairs(name: str) -> str:
    """The paired statistics of a ``benchmarks/baseline.py`` file: each row against the
    earlier rows of its model."""
    return paired_table(
        [(f"{r['model']}: {r['agent']} vs {a}", s) for r in load(name)["rows"] for a, s in r.get("paired", {}).items()]
    )


def by_kind(name: str) -> str:
    """Each row's score per kind of question (the suite's ``meta.kind``), with the count."""
    rows = load(name)["rows"]
    kinds = sorted({k for r in rows for k in r["breakdown"]["kind"]})
    return table(
        ["model", "agent", *kinds],
        [
            [r["model"], r["agent"], *(f"{c['score']:.2f} ({c['n']})" for c in map(r["breakdown"]["kind"].get, kinds))]
            for r in rows
        ],
    )


def proposals(name: str) -> str:
    """A GEPA run's proposal report: rules made, distinct, rejected (by reason, one example
    each), tried and accepted."""
    report = load(name)["proposals"]
    rows = [["made", str(report["made"]), ""], ["distinct", str(report["distinct"]), ""]]
    rows += [[f"rejected: {reason}", str(r["count"]), first(r["examples"])] for reason, r in report["rejected"].items()]
    rows.append(["tried (cost metric calls)", str(report["tried"]), first(report["tried_examples"])])
    rows.append(["accepted", str(len(report["accepted"])), first(report["accepted"])])
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


def first(examples: list[str]) -> str:
    """The first example as a table cell; empty when there is none."""
    return cell(examples[0]) if examples else ""


def cell(text: str) -> str:
    """``text`` as one Markdown table cell."""
    return " ".join(text.split()).replace("|", "\\|")


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


LOCOMO_CATEGORIES = ("single-hop", "multi-hop", "temporal", "open-domain", "adversarial")


def locomo(name: str = "locomo") -> str:
    rows = sorted(load(name)["rows"], key=lambda r: -r["f1"])
    judged = any("j" in r for r in rows)
    return table(
        [
            "condition",
            "F1 (1–4)",
            *(["J (1–4)"] if judged else []),
            "BLEU-1",
            "EM",
            *LOCOMO_CATEGORIES,
            "tokens/question",
            "s/question",
        ],
        [
            [
                r["condition"],
                f"{r['f1']:.3f}",
                *([maybe(r.get("j"))] if judged else []),
                f"{r['bleu1']:.3f}",
                f"{r['em']:.3f}",
                *(f"{r['by_category'][c]['f1']:.2f} ({r['by_category'][c]['n']})" for c in LOCOMO_CATEGORIES),
                f"{r['tokens_per_question']:,.0f}",
                f"{r['seconds_per_question']:.1f}",
            ]
            for r in rows
        ],
    )


TABLES = {
    "headline": synthetic("select_writer_s3000", HEADLINE_COLUMNS),
    "household": synthetic("household", HEADLINE_COLUMNS),
    "household_pairs": lambda: baseline_pairs("household"),
    "household_kinds": lambda: by_kind("household"),
    "baseline": synthetic("baseline", [c for c in SYNTHETIC_COLUMNS if c != "notes recall"]),
    "writers": synthetic("writers"),
    "filter_actor": synthetic("filter_actor"),
    "select_writer": synthetic("select_writer"),
    "select_writer_s3000": synthetic("select_writer_s3000"),
    "mem0": synthetic("mem0"),
    "faults": faults,
    "faults_inputs": faults_inputs,
    "hostile": hostile,
    "engine": engine,
    "oversubscription": oversubscription,
    "grammar": grammar,
    "store": store,
    "optimize": optimize,
    "optimize_select": lambda: optimize("optimize_select"),
    "demos": lambda: comparison("demos"),
    "optimize_select_warm": lambda: comparison("optimize_select_warm", "test"),
    "optimize_select_warm_proposals": lambda: proposals("optimize_select_warm"),
    "optimize_select_warm_instructions": lambda: instructions("optimize_select_warm"),
    "window_fidelity": window_fidelity,
    "distill": distill,
    "distill_hindsight_synthetic": lambda: distill_paired("distill_hindsight_synthetic"),
    "distill_hindsight_synthetic_grpo": lambda: distill_training("distill_hindsight_synthetic"),
    "distill_training": distill_training,
    "distill_sampling": distill_sampling,
    "locomo": locomo,
    "locomo_writers": lambda: locomo("locomo_writers"),
}


def pages() -> list[Path]:
    """The pages that hold results blocks: README.md and the docs."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def render(page: str) -> str:
    """``page`` with every results block re-rendered from its file (unknown names are errors)."""

    def block(match: re.Match) -> str:
        name = match.group("name")
        if name not in TABLES:
            raise KeyError(f"a page names results table {name!r}; known: {', '.join(TABLES)}")
        return match.group(1) + TABLES[name]() + match.group(4)

    return BLOCK.sub(block, page)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="exit 1 if any page's tables are out of date")
    args = parser.parse_args()
    stale = []
    for path in pages():
        text = path.read_text()
        fresh = render(text)
        if fresh != text:
            stale.append(path)
            if not args.check:
                path.write_text(fresh)
        if BLOCK.search(text):
            print(f"{path.relative_to(ROOT)}: {len(BLOCK.findall(text))} tables{' (stale)' if fresh != text else ''}")
    if args.check and stale:
        sys.exit(1)


if __name__ == "__main__":
    main()
