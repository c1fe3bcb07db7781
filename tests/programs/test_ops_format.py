import pytest

from promptmem.memory import Op
from promptmem.programs.ops_format import normalize_id, parse_ops


@pytest.mark.parametrize(
    "text",
    [
        '[{"op": "ADD", "text": "billing-api port 8123"}, {"op": "UPDATE", "id": "n2", "text": "x v2"}, {"op": "DELETE", "id": 3}]',
        '```json\n{"ops": [{"action": "add", "content": "billing-api port 8123"}, {"type": "edit", "note_id": "[n2]", "text": "x v2"}, {"kind": "remove", "id": "3"}]}\n```',
        "[{'op': 'ADD', 'text': 'billing-api port 8123'}, {'op': 'UPDATE', 'id': 'n2', 'text': 'x v2'}, {'op': 'DELETE', 'id': 'n3'}]",
        "ADD billing-api port 8123\nUPDATE n2: x v2\nDELETE [n3]",
        "- ADD: billing-api port 8123\n- UPDATE [n2] x v2\n- DELETE 3\n",
    ],
)
def test_repairs_the_common_shapes(text):
    parsed = parse_ops(text)
    assert parsed.errors == []
    assert parsed.ops == [Op("ADD", "billing-api port 8123"), Op("UPDATE", "x v2", "n2"), Op("DELETE", "", "n3")]


def test_reports_what_it_cannot_use_and_keeps_the_rest():
    parsed = parse_ops("ADD keep me\nplease remember the port\nUPDATE the owner\nNOOP")
    assert parsed.ops == [Op("ADD", "keep me"), Op("NOOP")]
    assert parsed.errors == [
        "unparseable line: 'please remember the port'",
        "UPDATE without a note id: 'UPDATE the owner'",
    ]


@pytest.mark.parametrize(
    "text, error",
    [
        ("", "no operations found"),
        ('[{"foo": 1}]', "op without a known kind"),
        ("[1, 2]", "op is not an object or a line"),
    ],
)
def test_garbage_is_an_error_never_an_exception(text, error):
    parsed = parse_ops(text)
    assert parsed.ops == [] and error in parsed.errors[0]


def test_normalize_id():
    assert [normalize_id(x) for x in (3, "3", "n3", "[n3]", None, " ")] == ["n3", "n3", "n3", "n3", None, None]


def test_ops_run_together_on_one_line_are_split():
    parsed = parse_ops("ADD geo-cache is in ap-south-1. UPDATE n2 Kwame owns payments-worker | DELETE n3; NOOP")
    assert parsed.ops == [
        Op("ADD", "geo-cache is in ap-south-1"),
        Op("UPDATE", "Kwame owns payments-worker", "n2"),
        Op("DELETE", "", "n3"),
        Op("NOOP"),
    ]
    assert parse_ops("ADD the update to billing-api is done").ops == [Op("ADD", "the update to billing-api is done")]


def test_op_words_inside_note_text_stay_note_text():
    parsed = parse_ops("ADD run DELETE n1 after the deploy, then NOOP the cron")
    assert parsed.ops == [Op("ADD", "run DELETE n1 after the deploy, then NOOP the cron")]
