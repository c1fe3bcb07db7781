"""Typed memory ops: the writer's output as a list of ``MemoryOp`` objects.

With the local engine the output is decoded under a JSON schema, so a malformed op cannot be
produced, and ``NoteIdsAdapter`` (``promptmem.lm.grammar``) narrows the ids an UPDATE or DELETE
may name to the notes shown; hosted LMs get the same type through DSPy's structured output,
and the store rejects an unknown id. Text inside a note is never read as an op.
"""

from __future__ import annotations

import json
from typing import ClassVar, Literal

import dspy
import json_repair
import pydantic
from dspy.utils.exceptions import AdapterParseError

from promptmem.memory import DEFAULT_IMPORTANCE, Op
from promptmem.programs.ops_format import normalize_id, parse_ops
from promptmem.roles import ItemGrammar

Importance = Literal[1, 2, 3, 4, 5]
IMPORTANCE = "how much the note will matter for later questions: 1 (little) to 5 (a lot)"


class MemoryOp(pydantic.BaseModel):
    """One edit: ADD (text), UPDATE (note_id and new text), DELETE (note_id) or NOOP.
    ``note_id`` is "" where the action names no note."""

    item_grammar: ClassVar[ItemGrammar] = ItemGrammar("note_id", "action", naming=("UPDATE", "DELETE"))
    action: Literal["ADD", "UPDATE", "DELETE", "NOOP"]
    note_id: str = pydantic.Field(description='id of an existing note for UPDATE/DELETE, else ""')
    text: str = pydantic.Field(description='the note text for ADD/UPDATE, else ""')
    importance: Importance = pydantic.Field(default=DEFAULT_IMPORTANCE, description=IMPORTANCE)


MemoryOpList = pydantic.TypeAdapter(list[MemoryOp])


def to_ops(value: object) -> tuple[list[Op], list[str]]:
    """Ops from a typed output (``MemoryOp`` list, dicts) or raw completion text (read by
    ``parse_ops``), with what could not be read; an empty list is a NOOP."""
    if isinstance(value, str):
        parsed = parse_ops(value)
        return parsed.ops, parsed.errors
    try:
        items = MemoryOpList.validate_python(value)
    except pydantic.ValidationError as err:
        return [], [f"ops do not match the MemoryOp type: {str(err).splitlines()[0][:200]}"]
    ops = [
        Op(
            item.action,
            item.text.strip() if item.action in ("ADD", "UPDATE") else "",
            normalize_id(item.note_id) if item.action in ("UPDATE", "DELETE") else None,
            item.importance if item.action in ("ADD", "UPDATE") else None,
        )
        for item in items
    ]
    return ops or [Op("NOOP")], []


def predict_items(predict: dspy.Predict, field: str, item: type[pydantic.BaseModel], **inputs) -> tuple[list, str]:
    """``predict``'s list output ``field``, and why part of it was dropped ("" if none was).

    An output DSPy cannot read whole (cut at the token limit, or one malformed item) keeps the
    items that validate as ``item``, except the last one, which may be cut mid-value."""
    try:
        return getattr(predict(**inputs), field), ""
    except AdapterParseError as err:
        response = err.lm_response or ""
    try:
        data = json.loads(response)
    except ValueError:
        data = json_repair.loads(response)
        data = (
            {field: data.get(field, [])[:-1]} if isinstance(data, dict) and isinstance(data.get(field), list) else data
        )
    items = data.get(field) if isinstance(data, dict) and isinstance(data.get(field), list) else []
    kept = []
    for raw in items:
        try:
            kept.append(item.model_validate(raw))
        except pydantic.ValidationError:
            continue
    return kept, (
        f"unreadable {field} output ({len(response)} chars, cut at the token limit?): kept {len(kept)} readable item(s)"
    )
