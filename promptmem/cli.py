"""The ``promptmem`` command line."""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from promptmem.cli_memory import memory_app

app = typer.Typer(
    help="promptmem: measure, optimize and distill agents that write their own memory.\n\n"
    "Start with `promptmem eval --streams 2` (embedded Qwen2.5-Coder-1.5B, offline).",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()


@contextmanager
def user_errors():
    """Bad input, a refused run directory, a missing model or a model server that did not
    start: one red message and exit code 2 (malformed data files raise ValueError subclasses
    that name the line and field)."""
    from promptmem.distill.students import StudentNotFound
    from promptmem.files import RunDirError
    from promptmem.lm.embedded import LocalModelError
    from promptmem.lm.server import LlamaServerError

    try:
        yield
    except (
        ValueError,
        RunDirError,
        LocalModelError,
        LlamaServerError,
        StudentNotFound,
        ImportError,
        FileNotFoundError,
    ) as err:
        console.print(f"[red]error:[/red] {err}")
        raise typer.Exit(2) from err


EVAL_EXAMPLES = """[bold]Examples[/bold]\n
  promptmem eval --streams 2 --tasks 12                        [dim]# seed agent, embedded 1.5B[/dim]\n
  promptmem eval --agent append-raw --lm local:qwen2.5-coder-0.5b\n
  promptmem eval --agent runs/opt/program.json                 [dim]# a GEPA-optimized program[/dim]\n
  promptmem eval --agent mem0 --top-k 10                       [dim]# the real mem0 (the peers extra)[/dim]\n
  promptmem eval --suite jsonl --data mine.jsonl --lm openai/gpt-4.1-mini --threads 8\n
  promptmem eval --suite locomo --data locomo10.json --store sqlite --top-k 8"""


_IMAGE = re.compile(r"!\[[^\]]*\]\([^)]*\)\n?")


def show_markdown(path: Path) -> None:
    """A Markdown results file as the terminal shows it: Rich tables, images left to the file."""
    from rich.markdown import Markdown

    console.print(Markdown(_IMAGE.sub("", path.read_text())))


@app.command("eval", epilog=EVAL_EXAMPLES)
def eval_command(
    suite: str = typer.Option("synthetic", help="Task suite: synthetic | jsonl | locomo (see `promptmem suites`)."),
    agent: str = typer.Option(
        "seed",
        help="seed | no-memory | append-raw | append-lines | full-context | mem0 | PATH.json (a saved program). append-lines: one note per observation line (a LoCoMo turn), for retrieval over lines. mem0: the real mem0 library (mem0ai 2.2.1; pip install 'promptmem\\[peers]') keeps the memories: each observation goes to its Memory.add (one LLM call extracts memories; mem0 2.x only adds, never updates or deletes), the actor sees Memory.search's top-k; same LM (a local model is served to mem0 by llama-cpp-python's server for the run), MiniLM embeddings, embedded qdrant under OUT/memory/.",
    ),
    writer: str = typer.Option(
        "ops",
        help="Seed agent's writer: ops (typed ADD/UPDATE/DELETE/NOOP), facts (subject/attribute/value, upserted per subject), notes (rewrite), mem0 (extract facts, then one op per fact) or select (chooses which numbered statements of the observation to keep; kept word for word in a recency buffer).",
    ),
    buffer_share: float = typer.Option(
        0.0,
        min=0.0,
        max=0.95,
        help="Seed agent: share of the notes budget kept as a recency buffer of raw observations beside the writer's notes (hybrid memory; 0 = none).",
    ),
    actor: str = typer.Option(
        "plain",
        help="plain: answers from the notes shown | filter: first selects the notes that bear on the question (one more call), then answers from those alone -- use with a large --top-k (e.g. 30).",
    ),
    lm: str = typer.Option(
        "local:qwen2.5-coder-1.5b",
        help="LM spec: local:qwen2.5-coder-1.5b | local:qwen2.5-coder-0.5b | local:smollm2-135m | any DSPy/litellm model (openai/gpt-4.1-mini, hosted_vllm/NAME with --api-base).",
    ),
    api_base: str | None = typer.Option(None, help="Server URL for hosted LMs (vLLM, an OpenAI-compatible server)."),
    streams: int = typer.Option(4, min=1, help="Number of streams."),
    seed: int = typer.Option(
        0,
        help="Which streams: synthetic, the generator's seed; jsonl and locomo, the index of the first stream in the file.",
    ),
    tasks: int | None = typer.Option(None, min=2, help="Synthetic: tasks per stream (default 24)."),
    budget: int | None = typer.Option(None, min=1, help="Notes budget in characters (default: the suite's)."),
    data: Path | None = typer.Option(
        None, help="jsonl: the streams file; locomo: the LoCoMo JSON (e.g. locomo10.json)."
    ),
    questions_at_end: bool = typer.Option(
        False, help="locomo: ask every question after the last session (default: right after its evidence)."
    ),
    questions: int | None = typer.Option(
        None, min=1, help="locomo: ask an evenly spaced sample of N questions per conversation (a cheaper run)."
    ),
    threads: int = typer.Option(
        4, min=1, help="Streams run in parallel threads (hosted LMs; a local model serves one call at a time)."
    ),
    store: str = typer.Option(
        "memory", help="Notes store: memory (in-process) | sqlite (OUT/memory/*.db, inspect with `promptmem memory`)."
    ),
    top_k: int | None = typer.Option(
        None,
        min=1,
        help="Show the actor only the top-k notes matching the question (sqlite: FTS5/BM25; memory: word overlap; --agent mem0: its search, default 20).",
    ),
    retriever: str = typer.Option(
        "lexical",
        help="With --top-k: lexical (FTS5/BM25 or word overlap) | embedding (all-MiniLM-L6-v2, offline; pip install 'promptmem\\[embed]').",
    ),
    rank: str = typer.Option(
        "",
        help="With --top-k: rank notes by weighted relevance, recency (halving every half_life tasks since a note was last written or confirmed) and the writer's importance rating, e.g. 'relevance=1,recency=0.5,importance=0.3,half_life=8'. Default: relevance alone.",
    ),
    show_time: bool = typer.Option(
        False, help="The actor sees when each note was written (task N, or the session date on LoCoMo)."
    ),
    hostile: float = typer.Option(
        0.0,
        min=0.0,
        max=1.0,
        help="Plant attacks on the writer in this share of observations (instructions, fake note ids, op words, 50 kB snippets); scores compare with the clean run on the same streams.",
    ),
    max_deletes: int | None = typer.Option(
        None, min=0, help="Guard: the store rejects DELETEs past this many in one write, with the reason."
    ),
    max_observation: int | None = typer.Option(
        None,
        min=1,
        help="Guard: cut observations to this many characters before any prompt (each cut is recorded in the task's meta).",
    ),
    baseline: bool = typer.Option(True, help="Also run no-memory on the same streams (memory gain)."),
    max_tokens: int = typer.Option(256, help="Completion limit per LM call."),
    contexts: int = typer.Option(
        4,
        min=1,
        help="Local models: llama.cpp contexts, one per prompt family (actor, writer, ...), each re-processing only what changed since its own previous prompt; 1 = one shared context.",
    ),
    out: Path = typer.Option(Path("runs/eval"), help="Run directory; rerunning into it resumes."),
) -> None:
    """Run an agent over task streams and report the continual metric.

    Writes OUT/report.json, OUT/summary.md and OUT/learning_curve.png. Each finished
    stream is saved under OUT/streams/, so an interrupted run resumes where it stopped.
    """
    from promptmem.evaluate import EvalConfig, evaluate
    from promptmem.lm.specs import LMConfig
    from promptmem.report.terminal import summary_table

    config = EvalConfig(
        suite=suite,
        agent=agent,
        writer=writer,
        buffer_share=buffer_share,
        actor=actor,
        streams=streams,
        seed=seed,
        tasks=tasks,
        budget=budget,
        data=str(data) if data else None,
        questions_at_end=questions_at_end,
        questions=questions,
        threads=threads,
        baseline=baseline,
        store=store,
        top_k=top_k,
        retriever=retriever,
        rank=rank,
        show_time=show_time,
        hostile=hostile,
        max_deletes=max_deletes,
        max_observation=max_observation,
    )
    lm_config = LMConfig(spec=lm, api_base=api_base, max_tokens=max_tokens, contexts=contexts)
    try:
        with user_errors():
            report = evaluate(config, lm_config, out)
    except KeyboardInterrupt:
        console.print(
            f"\n[yellow]interrupted.[/yellow] Finished streams are saved in {out}/streams; "
            "rerun the same command to resume."
        )
        raise typer.Exit(130) from None
    console.print(summary_table(report))
    console.print(
        f"[green]wrote[/green] {out}/report.json, summary.md (every column); learning curve: {out / 'learning_curve.png'}"
    )


@app.command("optimize")
def optimize_command(
    suite: str = typer.Option(
        "synthetic",
        help="Where the GEPA examples come from: synthetic (generated windows) | jsonl | locomo (windows cut from --data; train, val and test take disjoint streams in file order, written to OUT/split.json).",
    ),
    data: Path | None = typer.Option(None, help="jsonl, locomo: the data file."),
    writer: str = typer.Option("ops", help="Seed agent's writer to evolve: ops | facts | notes | mem0 | select."),
    buffer_share: float = typer.Option(
        0.0,
        min=0.0,
        max=0.95,
        help="Seed agent: share of the notes budget kept as a recency buffer of raw observations (hybrid memory).",
    ),
    actor: str = typer.Option(
        "plain", help="Seed agent's actor: plain | filter (selects the relevant notes, then answers)."
    ),
    agent: str = typer.Option("seed", help="Starting program: seed | PATH.json."),
    lm: str = typer.Option("local:qwen2.5-coder-0.5b", help="Task LM spec (runs the actor and writer)."),
    reflection_lm: str = typer.Option(
        "local:qwen2.5-coder-1.5b", help="Reflection LM spec (proposes new instructions; use a strong model)."
    ),
    api_base: str | None = typer.Option(None, help="Server URL for a hosted task LM."),
    budget: str = typer.Option(
        "light", help="GEPA budget: light | medium | heavy | N metric calls (one call = one stream window)."
    ),
    train: int = typer.Option(6, min=1, help="Training streams."),
    val: int = typer.Option(4, min=1, help="Validation streams (Pareto tracking)."),
    test: int = typer.Option(4, min=0, help="Held-out streams for seed vs optimized (0: skip)."),
    window: int = typer.Option(8, min=3, help="Tasks per GEPA example."),
    test_tasks: int = typer.Option(24, min=3, help="Synthetic: tasks per held-out stream (files: whole streams)."),
    seed: int = typer.Option(0, help="Synthetic streams: train seed, val seed+1, test seed+2."),
    notes_budget: int | None = typer.Option(None, help="Notes budget in characters."),
    minibatch: int = typer.Option(3, min=1, help="GEPA reflection minibatch size."),
    components: str = typer.Option("round_robin", help="Predictors GEPA edits per step: round_robin | all."),
    objective: str = typer.Option(
        "continual",
        help="continual: the stream score, actor and writer, per-role feedback | recall: the writer alone (no actor calls, several times cheaper), scored by notes recall -- whether the notes shown for each later question hold its answer.",
    ),
    proposer: str = typer.Option(
        "compact",
        help="compact: the reflection LM sees the current instructions and the deduplicated failures and proposes one checked rule, appended (sized for small local reflection models) | gepa: GEPA's own prompt with whole traces, whole new instructions.",
    ),
    cache_evaluation: bool = typer.Option(
        True, help="GEPA caches (candidate, example) scores, so no example is run twice for one candidate."
    ),
    threads: int = typer.Option(1, min=1, help="GEPA evaluation threads (hosted LMs)."),
    out: Path = typer.Option(Path("runs/optimize"), help="Run directory; rerunning resumes GEPA there."),
) -> None:
    """Evolve the actor's and writer's instructions with GEPA against the continual metric
    (or, with --objective recall, the writer's instructions against notes recall).

    Writes OUT/program.json (use it with `promptmem eval --agent OUT/program.json`), every
    candidate, the Pareto frontier, the learning curve, and seed vs optimized on held-out streams.
    """
    from promptmem.lm.specs import LMConfig
    from promptmem.optimize.gepa import OptimizeConfig, optimize

    config = OptimizeConfig(
        suite=suite,
        data=str(data) if data else None,
        agent=agent,
        writer=writer,
        buffer_share=buffer_share,
        actor=actor,
        budget=budget,
        train=train,
        val=val,
        test=test,
        window=window,
        test_tasks=test_tasks,
        seed=seed,
        notes_budget=notes_budget,
        minibatch=minibatch,
        components=components,
        threads=threads,
        objective=objective,
        proposer=proposer,
        cache_evaluation=cache_evaluation,
    )
    with user_errors():
        summary = optimize(
            config,
            LMConfig(spec=lm, api_base=api_base),
            LMConfig(spec=reflection_lm, temperature=1.0, max_tokens=1024, context=8192),
            out,
        )
    console.print(
        f"val score: seed {summary['seed_val_score']:.3f} -> best {summary['best_val_score']:.3f} "
        f"after {summary['metric_calls']} metric calls"
    )
    if summary["test"]:
        show_markdown(out / "comparison.md")
    console.print(f"[green]wrote[/green] {out}/program.json, candidates.json, pareto.json, optimize_curve.png")


DISTILL_EXAMPLES = """[bold]Examples[/bold]\n
  promptmem distill --student smollm2-135m --teacher runs/opt/program.json --lm local:qwen2.5-coder-0.5b\n
  promptmem distill --student qwen-0.5b --grpo-steps 50 --out runs/distill-05b\n
  [dim]# one GPU (pip install ".\\[distill,gpu]"): vLLM generates the GRPO completions in-process[/dim]\n
  promptmem distill --student qwen-4b --teacher runs/opt/program.json --lm openai/gpt-4.1-mini --vllm colocate\n
  [dim]# several GPUs: trace and SFT first, serve the SFT model with vLLM on one GPU, GRPO on the rest, then evaluate[/dim]\n
  promptmem distill --student qwen-4b --until sft --out runs/d4b\n
  CUDA_VISIBLE_DEVICES=7 trl vllm-serve --model runs/d4b/sft/model &\n
  CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6 accelerate launch --config_file configs/accelerate/multi_gpu.yaml -m promptmem.cli distill --student qwen-4b --vllm server --until grpo --out runs/d4b\n
  promptmem distill --student qwen-4b --out runs/d4b"""


@app.command("distill", epilog=DISTILL_EXAMPLES)
def distill_command(
    student: str = typer.Option(
        "qwen-0.5b",
        help="Student: qwen-0.5b | qwen-1.5b | smollm2-135m (dequantized from the embedded GGUFs), qwen-4b | qwen-1.7b | qwen-0.6b (from the local HF cache), or a checkpoint path.",
    ),
    teacher: str = typer.Option(
        "seed", help="Teacher program: seed | PATH.json (e.g. a `promptmem optimize` program.json)."
    ),
    writer: str = typer.Option(
        "ops", help="The seed teacher's writer: ops | facts | notes (GRPO writer credit needs a one-call writer)."
    ),
    lm: str = typer.Option("local:qwen2.5-coder-1.5b", help="Teacher LM spec: runs the teacher, and re-rolls rewards."),
    api_base: str | None = typer.Option(None, help="Server URL for a hosted teacher LM."),
    max_tokens: int = typer.Option(
        256, help="Completion limit per LM call, for the teacher and, in the comparison, the students."
    ),
    train_streams: int = typer.Option(4, min=1, help="Streams the teacher is traced on."),
    tasks: int = typer.Option(12, min=3, help="Synthetic: tasks per stream."),
    test_streams: int = typer.Option(2, min=1, help="Held-out streams for the final comparison."),
    samples: int = typer.Option(
        1,
        min=1,
        help="Rejection sampling: teacher completions per call (the greedy one, the rest at --sample-temperature); each trace row keeps the best by its role's reward (an answer's score, a write's notes recall). OUT/traces/sampling.json gives pass@1 and pass@k.",
    ),
    sample_temperature: float = typer.Option(1.0, help="Temperature of the extra teacher samples."),
    sft_epochs: float = typer.Option(2.0, help="SFT epochs over the kept trace rows."),
    min_writer_credit: float | None = typer.Option(
        None,
        help="SFT keeps only the teacher's writes whose realized credit (next questions' score minus the recent ones') is at least this.",
    ),
    lora: bool = typer.Option(True, help="LoRA (merged at the end) instead of full fine-tuning."),
    grpo_steps: int = typer.Option(20, min=0, help="GRPO steps."),
    generations: int = typer.Option(4, min=2, help="Completions per prompt (the GRPO group)."),
    prompts_per_step: int = typer.Option(4, min=1, help="GRPO groups per optimizer step (more: steadier updates)."),
    max_resamples: int = typer.Option(
        2,
        min=0,
        help="GRPO dynamic sampling (DAPO): times a step's groups are generated again, with fresh prompts in place of groups whose rewards were all equal (no gradient); groups still flat are logged as skipped. 0: off.",
    ),
    writer_reward: str = typer.Option(
        "recall",
        help="GRPO writer reward: recall (notes recall of the next questions where the suite knows their answers, no actor calls; credit elsewhere) | credit (the next questions re-answered by the teacher's actor).",
    ),
    gradient_checkpointing: bool = typer.Option(
        True,
        help="Recompute activations in the backward pass: less memory, more compute (~15% per SFT step for the 135M student on CPU: turn it off for small students).",
    ),
    schedule: str = typer.Option(
        "actor+writer",
        help="GRPO phases, comma-separated, each the roles it trains (joined by +) for --grpo-steps steps: e.g. writer,actor+writer trains the writer against the teacher's frozen actor first, then both roles.",
    ),
    vllm: str | None = typer.Option(None, help="GPU only: generate GRPO completions with vLLM, colocate | server."),
    until: str = typer.Option(
        "eval",
        help="Stop after this stage: traces | sft | grpo | eval (multi-GPU: trace first, train under accelerate, then evaluate).",
    ),
    serve: str = typer.Option(
        "gguf",
        help="How the comparison runs the students: gguf (a student dequantized from an embedded GGUF is written back as a GGUF at the teacher's quantization and run by llama.cpp, like a local teacher) | hf (transformers).",
    ),
    out: Path = typer.Option(Path("runs/distill"), help="Run directory; rerunning resumes every stage."),
) -> None:
    """Distill a teacher pipeline into a small open model: traces -> SFT -> GRPO -> comparison.

    GRPO rewards: the writer earns credit when the next questions improve (re-rolled from the
    same memory snapshot), the actor earns its score plus the discoveries that reach memory.
    Writes OUT/eval/comparison.{json,md,png} (teacher, student before training, after SFT,
    after GRPO) and OUT/grpo_rewards.{json,png}.
    """
    from promptmem.distill.pipeline import DistillConfig, distill
    from promptmem.distill.training import TrainConfig
    from promptmem.lm.specs import LMConfig

    config = DistillConfig(
        student=student,
        teacher=teacher,
        writer=writer,
        train_streams=train_streams,
        tasks=tasks,
        test_streams=test_streams,
        schedule=tuple(tuple(phase.split("+")) for phase in schedule.split(",")),
        min_writer_credit=min_writer_credit,
        serve=serve,
        samples=samples,
        sample_temperature=sample_temperature,
        writer_reward=writer_reward,
        train=TrainConfig(
            sft_epochs=sft_epochs,
            lora=lora,
            grpo_steps=grpo_steps,
            generations=generations,
            prompts_per_step=prompts_per_step,
            max_resamples=max_resamples,
            gradient_checkpointing=gradient_checkpointing,
            vllm=vllm,
        ),
    )
    with user_errors():
        summary = distill(
            config,
            LMConfig(spec=lm, api_base=api_base, max_tokens=max_tokens),
            out,
            until=until,
            say=lambda text: console.print(f"[bold]{text}[/bold]"),
        )
    if until != "eval":
        console.print(f"[green]stopped after {until}[/green]; rerun without --until to go on")
        return
    show_markdown(out / "eval" / "comparison.md")
    console.print(
        f"[green]wrote[/green] {out}/eval/comparison.*, {out}/grpo_rewards.* "
        f"({len(summary['grpo_rewards'])} GRPO steps logged)"
    )


@app.command("tune")
def tune_command(
    lm: str = typer.Option("local:qwen2.5-coder-0.5b", help="Task LM spec."),
    reflection_lm: str = typer.Option("local:qwen2.5-coder-1.5b", help="Reflection LM spec (with --gepa-budget)."),
    trials: int = typer.Option(8, min=1, help="Trials this worker runs (the shared study may hold more)."),
    streams: int = typer.Option(2, min=1, help="Tuning streams per trial."),
    tasks: int = typer.Option(16, min=3, help="Tasks per tuning stream."),
    budgets: str = typer.Option("400,800,1600", help="Notes budgets (characters) to try."),
    top_ks: str = typer.Option("0,4,8", help="Retrieval top-k to try (0: every note)."),
    writers: str = typer.Option("ops,notes", help="Writer styles to try."),
    gepa_budget: str | None = typer.Option(
        None, help="Also run GEPA per trial with this budget, tuning its minibatch size."
    ),
    out: Path = typer.Option(
        Path("runs/tune"), help="Study directory (OUT/study.db); rerun or run in parallel to add trials."
    ),
) -> None:
    """Search notes budget, retrieval top-k, writer style (and GEPA minibatch) with Optuna."""
    from promptmem.lm.specs import LMConfig
    from promptmem.optimize.tune import TuneConfig, tune

    ints = lambda text: tuple(int(x) for x in text.split(","))  # noqa: E731
    config = TuneConfig(
        trials=trials,
        streams=streams,
        tasks=tasks,
        budgets=ints(budgets),
        top_ks=ints(top_ks),
        writers=tuple(writers.split(",")),
        gepa_budget=gepa_budget,
    )
    with user_errors():
        best = tune(
            config, LMConfig(spec=lm), LMConfig(spec=reflection_lm, temperature=1.0, max_tokens=1024, context=8192), out
        )
    console.print(
        f"best score {best['value']:.3f} with {best['params']} ({best['trials']} trials); wrote {out}/best.json"
    )


@app.command("report")
def report_command(
    runs: list[Path] = typer.Argument(..., help="Finished eval run directories to compare."),
    html: Path = typer.Option(Path("report.html"), help="Where to write the page (one self-contained HTML file)."),
) -> None:
    """One HTML page comparing runs: scores and cost, learning curves, the notes over time
    (written, dropped, kept) and, per question, the note that held its answer or the write
    that lost it."""
    from promptmem.files import RunDirError
    from promptmem.report.html import write_html_report

    try:
        write_html_report(runs, html)
    except RunDirError as err:
        console.print(f"[red]error:[/red] {err}")
        raise typer.Exit(2) from err
    console.print(f"[green]wrote[/green] {html}")


@app.command("judge")
def judge_command(
    out: Path = typer.Argument(..., help="A finished eval run directory."),
    lm: str = typer.Option("local:qwen2.5-coder-1.5b", help="The judge's LM spec (the Mem0 paper used GPT-4o-mini)."),
    api_base: str | None = typer.Option(None, help="Server URL for hosted LMs."),
) -> None:
    """Add the LLM-judge score J (CORRECT/WRONG per answer) to a finished run: OUT/judge.json."""
    from promptmem.lm.specs import LMConfig, adapter_for, make_lm
    from promptmem.report.judgments import judge_run

    with user_errors():
        report = judge_run(out, make_lm(LMConfig(spec=lm, api_base=api_base, max_tokens=32)), adapter_for(lm))
    console.print(f"J = {report['j']:.3f}; wrote {out}/judge.json")


app.add_typer(memory_app, name="memory")

export_app = typer.Typer(help="Export promptmem streams to other tools.", no_args_is_help=True)
app.add_typer(export_app, name="export")

EXPORT_EXAMPLES = """[bold]Examples[/bold]\n
  promptmem export verifiers --streams 64 --tasks 12 --writer facts --out envs/promptmem-synthetic\n
  pip install -e envs/promptmem-synthetic\n
  vf-eval promptmem-synthetic -m MODEL --client.base-url http://127.0.0.1:8000/v1 -n 2 --no-push"""


@export_app.command("verifiers", epilog=EXPORT_EXAMPLES)
def export_verifiers_command(
    suite: str = typer.Option("synthetic", help="Task suite: synthetic | jsonl | locomo."),
    data: Path | None = typer.Option(None, help="jsonl, locomo: the data file (copied into the package)."),
    agent: str = typer.Option(
        "seed",
        help="seed | no-memory | append-raw | PATH.json (a saved program, copied into the package): whose actor and writer prompts the policy answers.",
    ),
    writer: str = typer.Option(
        "ops", help="Seed agent's writer: ops | facts | notes (one call per write, as GRPO needs)."
    ),
    actor: str = typer.Option("plain", help="plain | filter."),
    streams: int = typer.Option(8, min=1, help="Streams in the package: one rollout each."),
    seed: int = typer.Option(
        0, help="Which streams (synthetic: the generator's seed; files: the first stream's index)."
    ),
    tasks: int | None = typer.Option(None, min=2, help="Synthetic: tasks per stream (default 24)."),
    budget: int | None = typer.Option(None, min=1, help="Notes budget in characters (default: the suite's)."),
    questions: int | None = typer.Option(
        None, min=1, help="locomo: an evenly spaced sample of N questions per conversation."
    ),
    max_observation: int | None = typer.Option(None, min=1, help="Cut observations to this many characters."),
    horizon: int = typer.Option(3, min=1, help="The writer's reward looks at the next N questions."),
    writer_weight: float = typer.Option(0.5, min=0.0, help="Weight of the `writer` reward beside `score` (weight 1)."),
    name: str | None = typer.Option(None, help="Package and taskset id (default promptmem-SUITE)."),
    out: Path = typer.Option(..., help="Directory to write the package into (new or empty)."),
) -> None:
    """Write SUITE's streams as a verifiers environment package (verifiers 0.4.0, the
    verifiers.v1 API prime-rl consumes; the `peers` extra).

    One rollout is one stream: every actor and writer call of the agent is one turn of the
    policy, in a fresh context; the notes carry across the stream's tasks. Rewards: `score`
    (the suite's score of the answers) and `writer` (notes recall of the next questions where
    the suite knows the answers, else the realized credit) -- the functions promptmem's GRPO uses.
    """
    from promptmem.evaluate import EvalConfig
    from promptmem.integrations.verifiers_export import export_verifiers

    config = EvalConfig(
        suite=suite,
        data=str(data) if data else None,
        agent=agent,
        writer=writer,
        actor=actor,
        streams=streams,
        seed=seed,
        tasks=tasks,
        budget=budget,
        questions=questions,
        max_observation=max_observation,
    )
    with user_errors():
        package = export_verifiers(config, out, name=name, horizon=horizon, writer_weight=writer_weight)
    console.print(f"[green]wrote[/green] {package} (see its README.md); install it with `pip install -e {package}`")


@app.command("suites")
def suites_command() -> None:
    """List the task suites."""
    from promptmem.suites import SUITES

    table = Table("suite", "what it is")
    for name, suite in SUITES.items():
        table.add_row(name, suite.about)
    console.print(table)


@app.command("models")
def models_command() -> None:
    """List the embedded local models and whether their packages are installed."""
    import importlib.util

    from promptmem.lm.embedded import DEFAULT_LOCAL_MODEL, LOCAL_MODELS

    table = Table("LM spec", "size", "installed", "install with")
    for name, model in LOCAL_MODELS.items():
        installed = all(importlib.util.find_spec(p) for p in model.packages)
        label = f"local:{name}" + (" (default)" if name == DEFAULT_LOCAL_MODEL else "")
        table.add_row(label, f"{model.size / 1e9:.2f} GB", "yes" if installed else "no", model.install)
    console.print(table)


if __name__ == "__main__":
    app()
