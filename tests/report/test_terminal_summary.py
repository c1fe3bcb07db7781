"""The end-of-run summary fits an 80-column terminal: no header or agent name is cut."""

import pytest
from rich.console import Console

from promptmem.metrics import Cost, HeldSplit, Report, Summary
from promptmem.report.terminal import HEADERS, summary_table


def summary(agent: str, score: float, recall: float | None) -> Summary:
    cost = Cost(2.5, 1800.0, 120.0, 3.21, 40.0, 900.0)
    held = HeldSplit(9, 3, 0.8889, 0.0) if recall is not None else None
    return Summary(agent, 2, 14, score, {}, {}, [], {}, cost, 0, 0, 3, 812.0, recall, held=held)


def shown_at_80(agent: str) -> list[str]:
    report = Report(summary(agent, 0.744, 0.81), summary("no-memory", 0.179, None), 0.565)
    console = Console(width=80, record=True, color_system=None)
    console.print(summary_table(report))
    return console.export_text().splitlines()


@pytest.mark.parametrize("agent", ["seed", "gepa-select-qwen2.5-coder-1.5b"])
def test_the_terminal_summary_fits_80_columns_whole(agent):
    lines = shown_at_80(agent)
    assert not any("…" in line for line in lines) and max(map(len, lines)) <= 80
    assert all(any(header in line for line in lines) for header in HEADERS)
    assert any(agent in line and "0.744" in line and "+0.565" in line and "0.810" in line for line in lines)
    assert any("no-memory" in line and "0.179" in line for line in lines)
    where = " ".join(line.strip() for line in lines[-3:])
    assert "held the answer for 9 of 12 questions: the actor scored 0.89 on those, 0.00 on the rest" in where


def test_an_agent_name_longer_than_its_column_folds_and_is_not_cut():
    agent = "runs/optimize-select-writer-qwen2.5-coder-1.5b-held-out/program.json"
    lines = shown_at_80(agent)
    first_cells = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    assert not any("…" in line for line in lines) and max(map(len, lines)) <= 80
    assert agent in "".join(first_cells) and all(any(h in line for line in lines) for h in HEADERS)


def test_eval_prints_the_short_table_and_names_the_files_with_every_column(tmp_path, monkeypatch):
    from typer.testing import CliRunner

    import promptmem.evaluate
    from promptmem.cli import app, console

    report = Report(summary("seed", 0.744, 0.81), summary("no-memory", 0.179, None), 0.565)
    monkeypatch.setattr(promptmem.evaluate, "evaluate", lambda config, lm_config, out: report)
    monkeypatch.setattr(console, "width", 80)
    result = CliRunner().invoke(app, ["eval", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert all(header in result.output for header in HEADERS) and "…" not in result.output
    assert "summary.md" in result.output and "report.json" in result.output
