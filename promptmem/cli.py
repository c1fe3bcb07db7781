"""The ``promptmem`` command line."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

app = typer.Typer(
    help="promptmem: measure, optimize and distill agents that write their own memory.\n\n"
         "Start with `promptmem eval --streams 2` (embedded Qwen2.5-Coder-1.5B, offline).",
    no_args_is_help=True, add_completion=False)
console = Console()


@app.command("eval")
def eval_command(
    suite: str = typer.Option("synthetic", help="Task suite: synthetic | jsonl (see `promptmem suites`)."),
    agent: str = typer.Option("seed", help="seed | no-memory | append-raw | PATH.json (a saved program)."),
    writer: str = typer.Option("ops", help="Seed agent's writer: ops (ADD/UPDATE/DELETE/NOOP) or notes (rewrite)."),
    lm: str = typer.Option("local:qwen2.5-coder-1.5b", help="LM spec: local:qwen2.5-coder-1.5b | local:qwen2.5-coder-0.5b | local:smollm2-135m | any DSPy/litellm model (openai/gpt-4.1-mini, hosted_vllm/NAME with --api-base)."),
    api_base: Optional[str] = typer.Option(None, help="Server URL for hosted LMs (vLLM, an OpenAI-compatible server)."),
    streams: int = typer.Option(4, min=1, help="Number of streams."),
    seed: int = typer.Option(0, help="Which streams: the synthetic generator's seed."),
    tasks: Optional[int] = typer.Option(None, min=2, help="Synthetic: tasks per stream (default 24)."),
    budget: Optional[int] = typer.Option(None, min=1, help="Notes budget in characters (default: the suite's)."),
    data: Optional[Path] = typer.Option(None, help="jsonl suite: the streams file."),
    threads: int = typer.Option(4, min=1, help="Streams run in parallel threads."),
    baseline: bool = typer.Option(True, help="Also run no-memory on the same streams (memory gain)."),
    max_tokens: int = typer.Option(256, help="Completion limit per LM call."),
    out: Path = typer.Option(Path("runs/eval"), help="Run directory; rerunning into it resumes."),
) -> None:
    """Run an agent over task streams and report the continual metric.

    Writes OUT/report.json, OUT/summary.md and OUT/learning_curve.png. Each finished
    stream is saved under OUT/streams/, so an interrupted run resumes where it stopped.
    """
    from promptmem.evaluate import EvalConfig, RunDirError, evaluate
    from promptmem.lm import LMConfig
    from promptmem.local_models import LocalModelError
    from promptmem.suites import JsonlFormatError

    config = EvalConfig(suite=suite, agent=agent, writer=writer, streams=streams, seed=seed,
                        tasks=tasks, budget=budget, data=str(data) if data else None,
                        threads=threads, baseline=baseline)
    lm_config = LMConfig(spec=lm, api_base=api_base, max_tokens=max_tokens)
    try:
        report = evaluate(config, lm_config, out)
    except (ValueError, RunDirError, LocalModelError, JsonlFormatError, ImportError) as err:
        console.print(f"[red]error:[/red] {err}")
        raise typer.Exit(2) from err
    except KeyboardInterrupt:
        console.print(f"\n[yellow]interrupted.[/yellow] Finished streams are saved in {out}/streams; "
                      "rerun the same command to resume.")
        raise typer.Exit(130)
    console.print((out / "summary.md").read_text())
    console.print(f"[green]wrote[/green] {out}/report.json, summary.md, learning_curve.png")


@app.command("suites")
def suites_command() -> None:
    """List the task suites."""
    from promptmem.suites import SUITES

    table = Table("suite", "what it is")
    for name, (_, about) in SUITES.items():
        table.add_row(name, about)
    console.print(table)


@app.command("models")
def models_command() -> None:
    """List the embedded local models and whether their packages are installed."""
    import importlib.util

    from promptmem.local_models import DEFAULT_LOCAL_MODEL, LOCAL_MODELS

    table = Table("LM spec", "size", "installed", "install with")
    for name, model in LOCAL_MODELS.items():
        installed = all(importlib.util.find_spec(p) for p in model.packages)
        label = f"local:{name}" + (" (default)" if name == DEFAULT_LOCAL_MODEL else "")
        table.add_row(label, f"{model.size / 1e9:.2f} GB", "yes" if installed else "no", model.install)
    console.print(table)


if __name__ == "__main__":
    app()
