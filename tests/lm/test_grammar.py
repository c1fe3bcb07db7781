"""The writer grammar: ids narrowed to the notes shown, numbers to the lines shown, 1 to MAX_ITEMS items,
the prompt untouched."""

import json

import pytest
from dspy.adapters.json_adapter import _get_structured_outputs_response_format

from promptmem.lm.grammar import MAX_ITEMS, item_grammars, narrow_note_ids, narrow_numbers, shown_ids
from promptmem.programs.facts import ExtractFacts
from promptmem.programs.select import SelectStatements
from promptmem.programs.writers import EditNotes


def schema_of(signature) -> dict:
    return _get_structured_outputs_response_format(signature).model_json_schema()


def test_op_ids_are_the_shown_ones_and_lists_are_bounded():
    assert shown_ids("[n1] a\n[n12] b: [n3] inside\nno id") == ["n1", "n12"]
    narrowed = narrow_note_ids(schema_of(EditNotes), ["n1", "n12"], item_grammars(EditNotes))
    variants = narrowed["$defs"]["MemoryOp"]["anyOf"]
    assert [(v["properties"]["action"]["enum"], v["properties"]["note_id"]["enum"]) for v in variants] == [
        (["ADD", "NOOP"], [""]),
        (["UPDATE", "DELETE"], ["n1", "n12"]),
    ]
    assert narrowed["properties"]["operations"] | {"items": None} == {
        "items": None,
        "title": "Operations",
        "type": "array",
        "minItems": 1,
        "maxItems": MAX_ITEMS,
    }
    empty = narrow_note_ids(schema_of(EditNotes), [], item_grammars(EditNotes))
    assert empty["$defs"]["MemoryOp"]["properties"]["note_id"]["enum"] == [""]  # nothing to update


def test_facts_are_bounded_and_other_outputs_untouched():
    facts = narrow_note_ids(schema_of(ExtractFacts), [], item_grammars(ExtractFacts))
    assert (facts["properties"]["facts"]["minItems"], facts["properties"]["facts"]["maxItems"]) == (1, MAX_ITEMS)
    plain = {"type": "object", "properties": {"answer": {"type": "string"}}}
    assert narrow_note_ids(plain, ["n1"], {}) == plain


def test_statement_numbers_are_the_shown_ones():
    narrowed = narrow_numbers(schema_of(SelectStatements), [1, 2, 3])
    assert narrowed["properties"]["keep"] | {"title": None} == {
        "title": None,
        "type": "array",
        "items": {"type": "integer", "enum": [1, 2, 3]},
        "minItems": 1,
        "maxItems": 3,
    }
    assert narrow_numbers(schema_of(SelectStatements), []) == schema_of(SelectStatements)
    assert narrow_numbers(schema_of(EditNotes), [1, 2]) == schema_of(EditNotes)  # no list of integers


def test_llama_cpp_compiles_the_narrowed_grammar():
    llama_cpp = pytest.importorskip("llama_cpp", reason="llama-cpp-python (the `local` extra) is not installed")
    for signature in (EditNotes, ExtractFacts):
        grammar = llama_cpp.LlamaGrammar.from_json_schema(
            json.dumps(narrow_note_ids(schema_of(signature), ["n1"], item_grammars(signature))), verbose=False
        )
        assert grammar is not None
    assert (
        llama_cpp.LlamaGrammar.from_json_schema(
            json.dumps(narrow_numbers(schema_of(SelectStatements), [1, 2])), verbose=False
        )
        is not None
    )
