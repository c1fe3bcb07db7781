"""The reliability tables: faults and resume, hostile notes, the engine, cores, the JSON
grammar and the memory stores (``docs/reliability.md``, ``docs/results.md``)."""

from __future__ import annotations

from benchmarks.tables.common import load, maybe, table

KILL_TARGETS = {
    "eval": "`eval`",
    "locomo": "`eval` on a LoCoMo conversation (SQLite store)",
    "optimize": "`optimize`",
    "distill": "`distill` (traces, SFT, GRPO; a scratch student)",
}


def _kill_outcome(k: dict) -> str:
    text = f"{k['results_lost']} results lost; {k['equal_to_uninterrupted']}/{k['runs']} equal to an uninterrupted run"
    if "bit_equal" in k:
        largest = maybe(k["largest_weight_drift"], "{:.1e}")
        text += f" ({k['bit_equal']} bit for bit; largest weight difference {largest})"
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
    rows.append(["**all cases**", "", _input_counts(data), ""])
    return table(["input", "issue #28 item", "outcome", "handled"], rows)


def reliability_line() -> str:
    """The README's one line: the kills survived and the bad inputs handled, with what went wrong."""
    data = load("faults")
    kills = data["kills"].values()
    inputs = data["inputs"]
    return (
        f"{sum(k['killed'] for k in kills)} runs SIGKILLed mid-run and rerun, "
        f"{sum(k['results_lost'] for k in kills)} results lost; {len(data['server_faults'])} hosted-LM "
        f"faults; {inputs['handled']} of {inputs['cases']} bad inputs handled, with "
        f"{inputs['silent_wrong']} silently wrong, {inputs['secrets_written']} secrets written, "
        f"{inputs['outside_out']} files written outside `--out` and {inputs['tracebacks']} tracebacks "
        "(`python -m benchmarks.faults`).\n"
    )


def _input_counts(data: dict) -> str:
    """The all-cases line: handled of all, and (results written since issue #42) what went wrong."""
    line = f"{data['handled']} of {data['cases']} handled"
    if "silent_wrong" not in data:
        return line
    wrong = ("silent_wrong", "secrets_written", "outside_out", "tracebacks")
    return line + "; " + ", ".join(f"{key.replace('_', ' ')} {data[key]}" for key in wrong)


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
