"""The filter actor: select the notes that bear on the question, then answer from them alone."""

import dspy
from dspy.utils.dummies import DummyLM

from promptmem.memory import EMPTY_NOTES
from promptmem.programs import build_agent, load_agent, save_agent
from promptmem.programs.actor import NONE_SELECTED, FilterActor, selected_lines

NOTES = "[n1] billing-api: port = 8123\n[n2] Lena: drink = espresso\n[n3] billing-api: owner = Priya"


def test_only_the_selected_notes_reach_the_answer():
    lm = DummyLM({"[[ ## observation ## ]]": {"answer": "Priya"}, "## relevant ##": {"relevant": ["n3", "n9", "[n1]"]}})
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        assert FilterActor()(notes=NOTES, observation="", question="Who owns billing-api?") == "Priya"
    answer_prompt = lm.history[-1]["messages"][-1]["content"]
    assert "[n3] billing-api: owner = Priya\n[n1] billing-api: port = 8123" in answer_prompt
    assert "espresso" not in answer_prompt and len(lm.history) == 2


def test_with_no_notes_it_answers_in_one_call():
    lm = DummyLM({"[[ ## observation ## ]]": {"answer": "x"}})
    with dspy.context(lm=lm, adapter=dspy.ChatAdapter()):
        FilterActor()(notes=EMPTY_NOTES, observation="", question="q?")
    assert len(lm.history) == 1


def test_selected_lines_keeps_the_selection_order_and_says_when_none_matched():
    assert selected_lines(NOTES, ["n2", "n2"]) == "[n2] Lena: drink = espresso"
    assert selected_lines(NOTES, ["n7"]) == NONE_SELECTED


def test_a_selected_multi_line_note_keeps_all_its_lines():
    notes = "[n1] (observed in t02) deploy log\nbilling-api now listens on 9090\nrolled out\n[n2] Lena: drink = tea"
    assert (
        selected_lines(notes, ["n1"])
        == "[n1] (observed in t02) deploy log\nbilling-api now listens on 9090\nrolled out"
    )
    assert selected_lines(notes, ["n2", "n1"]).startswith("[n2] Lena: drink = tea\n[n1]")


def test_the_actor_kind_is_saved_with_the_program(tmp_path):
    agent = build_agent("seed", "facts", actor="filter")
    save_agent(agent, tmp_path / "program.json")
    loaded = load_agent(tmp_path / "program.json")
    assert isinstance(loaded.actor, FilterActor) and loaded.actor_kind == "filter" and loaded.writer_kind == "facts"
