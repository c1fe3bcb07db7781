"""The run story (notes per step; why each question's answer was or was not in the notes) and
the HTML report built on it."""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from matplotlib.image import imread

from promptmem.evaluate import EvalConfig, evaluate
from promptmem.files import RunDirError
from promptmem.lm.specs import LMConfig
from promptmem.report.html import html_report, write_html_report
from promptmem.report.story import question_story, replay
from promptmem.runner import StreamResult
from promptmem.tasks import Evidence, Fact
from tests.helpers.records import op, record
from tests.helpers.scripted import scripted_lm, typed_ops


def entry(step, kind, text="", note_id=None, result_id=None) -> dict:
    return {"step": step, **op(kind, text, note_id, result_id=result_id)}


RESULT = StreamResult(
    "s",
    "seed",
    [record(i, question=q, task_id=f"t{i}") for i, q in enumerate((None, None, "port?", "owner?"))],
    [
        entry("t0", "ADD", "billing-api port 8123", result_id="n1"),
        entry("t0", "ADD", "Priya owns billing-api", result_id="n2"),
        entry("t1", "DELETE", note_id="n1", result_id="n1"),
        entry("t2", "NOOP"),
    ],
    [],
)
POSITIONS = {"t0": 0, "t1": 1, "t2": 2, "t3": 3}


def test_replay_gives_the_notes_before_each_write_and_what_each_step_changed():
    before, steps = replay(RESULT)
    assert before[1] == {"n1": "billing-api port 8123", "n2": "Priya owns billing-api"}
    assert before[2] == {"n2": "Priya owns billing-api"}
    assert steps[1].dropped == ("billing-api port 8123",) and steps[0].written[0] == "billing-api port 8123"


def test_each_question_gets_the_note_that_held_it_or_the_write_that_lost_it():
    before, steps = replay(RESULT)
    lost = Evidence((Fact("8123", "billing-api"),), stated_in=("t0",))
    held = Evidence((Fact("Priya", "billing-api"),), stated_in=("t0",))
    never = Evidence((Fact("us-east-2", "billing-api"),), stated_in=("t1",))
    assert question_story(lost, 2, before, steps, POSITIONS) == (
        "written after t0, lost by the write after t1 (dropped: billing-api port 8123)"
    )
    assert question_story(held, 3, before, steps, POSITIONS) == "the notes held it: [n2] Priya owns billing-api"
    assert question_story(never, 2, before, steps, POSITIONS).startswith("never written: the write after t1")
    assert (
        question_story(Evidence((), current=True), 2, before, steps, POSITIONS) == "no ground truth for this question"
    )


@pytest.fixture
def run_dir(tmp_path):
    lm = scripted_lm("3000", {"operations": typed_ops("ADD billing-api listens on port 3000")})
    evaluate(
        EvalConfig(writer="ops", streams=1, tasks=8, threads=1),
        LMConfig(spec="dummy/x"),
        tmp_path / "run",
        lm=lm,
        show_progress=False,
    )
    return tmp_path / "run"


def test_the_page_is_self_contained_and_tells_each_questions_story(run_dir, tmp_path):
    page = html_report([run_dir, run_dir])
    assert page.count("<svg") == 2 and not re.search(r"(src|href)=[\"']https?://", page)  # nothing fetched
    assert "Which port does" in page or "Who owns" in page or "Which region" in page or "Which version" in page
    assert any(phrase in page for phrase in ("the notes held it", "never written", "own observation"))
    with pytest.raises(RunDirError, match="not a finished"):
        html_report([tmp_path / "nothing"])


def test_the_page_renders_in_headless_chromium(run_dir, tmp_path):
    """In CI (.ci/run installs Chromium and sets PROMPTMEM_CI) a missing browser fails the test;
    the page and its screenshot are kept under PROMPTMEM_ARTIFACTS when that is set."""
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if not browser:
        missing = "Chromium is not on this machine (Debian: apt-get install chromium)"
        if os.environ.get("PROMPTMEM_CI"):
            pytest.fail(f"{missing}; .ci/run installs it")
        pytest.skip(missing)
    keep = Path(os.environ.get("PROMPTMEM_ARTIFACTS") or tmp_path)
    keep.mkdir(parents=True, exist_ok=True)
    page, shot = keep / "report.html", keep / "report.png"
    write_html_report([run_dir], page)
    subprocess.run(
        [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            f"--screenshot={shot}",
            "--window-size=1200,1600",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    pixels = imread(shot)[..., :3]
    assert pixels.shape[:2] == (1600, 1200) and (pixels < 0.9).any(axis=-1).mean() > 0.01  # not a blank page
    print(f"screenshot: {shot}")
