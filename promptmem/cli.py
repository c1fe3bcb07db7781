"""The ``promptmem`` command line."""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from promptmem.cli_app import App
from promptmem.cli_memory import memory_app
from promptmem.cli_options import Options, config_options, given
from promptmem.distill.config import DistillConfig
from promptmem.evaluate import EvalConfig
from promptmem.integrations.verifiers_export import PackageConfig
from promptmem.judgments import JUDGE_LM
from promptmem.lm.specs import LMConfig
from promptmem.optimize.gepa import REFLECTION_LM, TASK_LM, OptimizeConfig
from promptmem.optimize.tune import TuneConfig

app = App(
    help="promptmem: measure, optimize and distill agents that write their own memory.\n\n"
    "Start with `promptmem eval --streams 2` (embedded Qwen2.5-Coder-1.5B, offline).",
    no_args_is_help=True,
    add_completion=False,
)
console = Console()


@contextmanager
def user_errors():
    """Bad input, a refused run directory, a missing model, a model server that did not
    start or an LM that cannot answer: one red message, redacted (``promptmem.redact``), and
    exit code 2 (malformed data files raise ValueError subclasses that name the line and field)."""
    from promptmem.distill.students import StudentNotFound
    from promptmem.failures import LMUnavailable
    from promptmem.files import RunDirError
    from promptmem.lm.embedded import LocalModelError
    from promptmem.lm.server import LlamaServerError
    from promptmem.redact import redact

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
        LMUnavailable,
    ) as err:
        console.print(f"[red]error:[/red] {escape(redact(str(err)))}")
        raise typer.Exit(2) from err


def writer_taken(config) -> None:
    """Refuse ``--writer`` given to an agent that takes none (``config``: the command's config,
    with ``agent`` and ``writer``; ``programs.agent.check_writer_taken``)."""
    from promptmem.programs.agent import check_writer_taken

    check_writer_taken(config.agent, config.writer if given("writer") else None)


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
@config_options(config=EvalConfig, lm=LMConfig)
def eval_command(
    config: EvalConfig,
    lm: LMConfig,
    out: Path = typer.Option(Path("runs/eval"), help="Run directory; rerunning into it resumes."),
) -> None:
    """Run an agent over task streams and report the continual metric.

    Writes OUT/report.json, OUT/summary.md and OUT/learning_curve.png. Each finished
    task is kept under OUT/streams/, so an interrupted run resumes where it stopped. Exit
    code 1 when an LM call failed (its stream is left for the rerun), 2 on a user error.
    """
    from promptmem.evaluate import evaluate
    from promptmem.report.terminal import summary_table

    try:
        with user_errors():
            writer_taken(config)
            report = evaluate(config, lm, out)
    except KeyboardInterrupt:
        console.print(
            f"\n[yellow]interrupted.[/yellow] Finished tasks are kept in {out}/streams; "
            "rerun the same command to resume."
        )
        raise typer.Exit(130) from None
    console.print(summary_table(report))
    console.print(
        f"[green]wrote[/green] {out}/report.json, summary.md (every column); learning curve: {out / 'learning_curve.png'}"
    )
    if report.agent.failed_calls or (report.baseline and report.baseline.failed_calls):
        raise typer.Exit(1)


@app.command("optimize")
@config_options(
    config=OptimizeConfig,
    lm=Options(TASK_LM, only=("spec", "api_base", "threads")),
    reflection=Options(REFLECTION_LM, prefix="reflection", only=("spec", "threads")),
)
def optimize_command(
    config: OptimizeConfig,
    lm: LMConfig,
    reflection: LMConfig,
    out: Path = typer.Option(Path("runs/optimize"), help="Run directory; rerunning resumes GEPA there."),
) -> None:
    """Evolve the actor's and writer's instructions with GEPA against the continual metric
    (or, with --objective recall, the writer's instructions against notes recall).

    --lm is the task LM (it runs the actor and writer; --api-base is its server);
    --reflection-lm proposes new instructions: use a strong model. Writes OUT/program.json
    (use it with `promptmem eval --agent OUT/program.json`), every candidate, the Pareto
    frontier, the learning curve, and seed vs optimized on held-out streams.
    """
    from promptmem.optimize.gepa import optimize

    with user_errors():
        writer_taken(config)
        summary = optimize(config, lm, reflection, out)
    console.print(
        f"val score: seed {summary['seed_val_score']:.3f} -> best {summary['best_val_score']:.3f} "
        f"after {summary['metric_calls']} metric calls"
    )
    if summary["test"]:
        show_markdown(out / "comparison.md")
    console.print(f"[green]wrote[/green] {out}/program.json, candidates.json, pareto.json, optimize_curve.png")


DISTILL_EXAMPLES = """[bold]Examples[/bold]\n
  [dim]# your own streams (JSONL, gold answers are enough), the best measured recipe[/dim]\n
  promptmem distill --suite jsonl --data train.jsonl --test-data heldout.jsonl --out runs/mine\n
  promptmem distill --config recipes/household_stated12.yaml --out runs/household   [dim]# a recipe; flags override it[/dim]\n
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
@config_options(config=Options(DistillConfig, from_file=True), lm=Options(LMConfig, exclude=("contexts",)))
def distill_command(
    config: DistillConfig,
    lm: LMConfig,
    until: str = typer.Option(
        "eval",
        help="Stop after this stage: traces | sft | grpo | eval (multi-GPU: trace first, train under accelerate, then evaluate).",
    ),
    out: Path = typer.Option(Path("runs/distill"), help="Run directory; rerunning resumes every stage."),
    teacher_from: Path | None = typer.Option(
        None,
        help="A finished distill run whose teacher work this run starts from, each part where its settings match: the teacher's traces (this run's teacher and trace settings), its held-out row (the same held-out streams and teacher LM; e.g. a run on another training file of the same world), and its SFT stage where every setting SFT reads matches: vary the student's training without redoing the teacher, or GRPO without redoing SFT.",
    ),
) -> None:
    """Distill a teacher pipeline into a small open model: traces -> SFT -> GRPO -> comparison.

    --lm is the teacher's LM: it runs the teacher and re-rolls rewards; --max-tokens also
    limits the students in the comparison. The defaults are the best measured recipe (the
    select writer): SFT on the keep-lists a writer that knew each training stream's future would
    write (--hindsight-target inferred: read off the gold answers where the streams carry
    nothing else) and on right answers sampled on its notes; GRPO on the writer's dense
    hindsight reward; the student served at Q8_0. The run prints its plan with each stage's
    estimated minutes first. Writes OUT/eval/comparison.{json,md,png} (teacher and students,
    paired statistics), OUT/grpo_rewards.{json,png}, OUT/timings.json and, beside the final
    student's weights, its card (STUDENT.md, student.json, recipe.yaml); the last line is the
    promptmem eval command that uses the student.
    """
    from promptmem.distill.pipeline import distill
    from promptmem.programs.agent import check_writer_taken

    with user_errors():
        check_writer_taken(config.teacher, config.writer if given("writer") else None)
        summary = distill(
            config,
            lm,
            out,
            until=until,
            teacher_from=teacher_from,
            say=lambda text: console.print(f"[bold]{text}[/bold]"),
        )
    if until != "eval":
        console.print(f"[green]stopped after {until}[/green]; rerun without --until to go on")
        return
    show_markdown(out / "eval" / "comparison.md")
    console.print(
        f"[green]wrote[/green] {out}/eval/comparison.*, {out}/grpo_rewards.* "
        f"({len(summary['grpo_rewards'])} GRPO steps logged); the student's card: {summary['student_card']}"
    )
    console.print(f"use the student: [bold]{escape(summary['use'])}[/bold]")


@app.command("tune")
@config_options(
    config=TuneConfig,
    lm=Options(TASK_LM, only=("spec", "threads")),
    reflection=Options(REFLECTION_LM, prefix="reflection", only=("spec", "threads")),
)
def tune_command(
    config: TuneConfig,
    lm: LMConfig,
    reflection: LMConfig,
    out: Path = typer.Option(
        Path("runs/tune"), help="Study directory (OUT/study.db); rerun or run in parallel to add trials."
    ),
) -> None:
    """Search notes budget, retrieval top-k, writer style (and GEPA minibatch) with Optuna.

    --lm is the task LM; --reflection-lm proposes instructions when --max-metric-calls runs GEPA.
    """
    from promptmem.optimize.tune import tune

    with user_errors():
        best = tune(config, lm, reflection, out)
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
    from promptmem.report.html import write_html_report

    with user_errors():
        write_html_report(runs, html)
    console.print(f"[green]wrote[/green] {html}")


@app.command("judge")
@config_options(lm=Options(JUDGE_LM, only=("spec", "api_base", "threads")))
def judge_command(lm: LMConfig, out: Path = typer.Argument(..., help="A finished eval run directory.")) -> None:
    """Add the LLM-judge score J (CORRECT/WRONG per answer) to a finished run: OUT/judge.json.

    --lm is the judge's LM (the Mem0 paper used GPT-4o-mini).
    """
    from promptmem.judgments import judge_run
    from promptmem.lm.specs import adapter_for, make_lm

    with user_errors():
        report = judge_run(out, make_lm(lm), adapter_for(lm.spec))
    console.print(f"J = {report['j']:.3f}; wrote {out}/judge.json")


app.add_typer(memory_app, name="memory")

export_app = typer.Typer(help="Export promptmem streams to other tools.", no_args_is_help=True)
app.add_typer(export_app, name="export")

EXPORT_EXAMPLES = """[bold]Examples[/bold]\n
  promptmem export verifiers --streams 64 --tasks 12 --writer facts --out envs/promptmem-synthetic\n
  pip install -e envs/promptmem-synthetic\n
  vf-eval promptmem-synthetic -m MODEL --client.base-url http://127.0.0.1:8000/v1 -n 2 --no-push"""


# the eval settings an exported package takes; one rollout per stream, 8 streams by default
EXPORTED = Options(
    EvalConfig(streams=8),
    only=(
        "suite",
        "data",
        "agent",
        "writer",
        "actor",
        "streams",
        "seed",
        "tasks",
        "budget",
        "questions",
        "max_observation",
    ),
)


@export_app.command("verifiers", epilog=EXPORT_EXAMPLES)
@config_options(config=EXPORTED, package=PackageConfig)
def export_verifiers_command(
    config: EvalConfig,
    package: PackageConfig,
    out: Path = typer.Option(..., help="Directory to write the package into (new or empty)."),
) -> None:
    """Write SUITE's streams as a verifiers environment package (verifiers 0.4.0, the
    verifiers.v1 API prime-rl consumes; the `peers` extra).

    One rollout is one stream: every actor and writer call of the agent is one turn of the
    policy, in a fresh context; the notes carry across the stream's tasks. The agent is seed,
    no-memory, append-raw or a saved program (copied into the package, as the --data file is);
    its writer makes one call per write (a one-call writer), as GRPO needs. Rewards: `score`
    (the suite's score of the answers) and `writer` (notes recall of the next questions where
    the suite knows the answers, else the realized credit) -- the functions promptmem's GRPO uses.
    """
    from promptmem.integrations.verifiers_export import export_verifiers

    with user_errors():
        writer_taken(config)
        written = export_verifiers(config, out, package)
    console.print(f"[green]wrote[/green] {written} (see its README.md); install it with `pip install -e {written}`")


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
