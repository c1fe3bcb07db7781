"""Keyed facts: the writer extracts (subject, attribute, value) facts; the notes hold one note
per subject (``subject: attribute = value; attribute = value``), upserted by (subject,
attribute), so a changed value replaces the stale one in place and the subject's note is the
unit that retrieval returns. Rendering per subject keeps many facts in a small budget.

The model's judgment is which subjects and attributes are worth keeping (and how important
each is, 1-5); the structure (the typed output and the upsert) is code, so a write cannot drop
or duplicate a fact by mistake. Restating a fact confirms its subject's note. Past the budget,
the least recently written subjects not touched by this write are deleted first. Notes of any
other shape (e.g. a hybrid buffer's) are left alone.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import ClassVar

import dspy
import pydantic
from pydantic_core import to_jsonable_python

from promptmem.memory import DEFAULT_IMPORTANCE, Note, Op, notes_size
from promptmem.programs.typed_ops import IMPORTANCE, Importance
from promptmem.programs.writers import TypedWriter, WriterInputs
from promptmem.roles import Abilities, ItemGrammar, Write

_NOTE = re.compile(r"^(?P<subject>[^:;=\n]+): (?P<pairs>[^=\n]+ = [^\n]*)$")
_UNSAFE = re.compile(r"[:;=\s]+")


class KeyFact(pydantic.BaseModel):
    item_grammar: ClassVar[ItemGrammar] = ItemGrammar()  # a bounded list; names no note
    subject: str = pydantic.Field(description="what the fact is about (a service, a person, a place…)")
    attribute: str = pydantic.Field(description="which property of the subject (e.g. port, owner)")
    value: str = pydantic.Field(description="its current value, as stated")
    importance: Importance = pydantic.Field(default=DEFAULT_IMPORTANCE, description=IMPORTANCE)


KeyFacts = pydantic.TypeAdapter(list[KeyFact])


class ExtractFacts(WriterInputs):
    """You keep a table of facts that help you answer future questions. After each task, list
    the facts stated in the observation that a later question could ask about, each as a
    subject, an attribute and its value. A new value for a known subject and attribute replaces
    the old one, so restate a fact whenever it changes. Leave out chatter and facts that will not
    matter later; restating a fact the table already holds changes nothing."""

    facts: list[KeyFact] = dspy.OutputField(desc="facts worth keeping, at least one")


def _clean(text: str) -> str:
    return _UNSAFE.sub(" ", str(text)).strip()


def parse_fact_note(text: str) -> tuple[str, dict[str, str]] | None:
    """``(subject, {attribute: value})`` of a fact note, or None for a note of another shape."""
    match = _NOTE.match(text)
    if not match:
        return None
    pairs = [pair.split(" = ", 1) for pair in match.group("pairs").split("; ")]
    if any(len(pair) != 2 for pair in pairs):
        return None
    return match.group("subject"), dict(pairs)


def fact_note(subject: str, attributes: dict[str, str]) -> str:
    return f"{subject}: " + "; ".join(f"{a} = {v}" for a, v in attributes.items())


def upsert_ops(notes: Sequence[Note], facts: Sequence[KeyFact], budget: int) -> list[Op]:
    """Ops that upsert ``facts`` into the per-subject notes (see the module docstring): an
    UPDATE per changed subject, an ADD per new one, and an UPDATE to the same text (a
    confirmation) per subject restated unchanged; a subject note's importance is the highest
    its facts were rated in this write."""
    table: dict[str, tuple[str | None, str, dict[str, str]]] = {}  # key -> (note id, subject, attrs)
    for note in notes:
        parsed = parse_fact_note(note.text)
        if parsed:
            table[parsed[0].casefold()] = (note.id, parsed[0], parsed[1])
    touched: dict[str, int] = {}  # subject key -> importance
    for fact in facts:
        subject, attribute, value = _clean(fact.subject), _clean(fact.attribute).lower(), _clean(fact.value)
        if not (subject and attribute and value):
            continue
        note_id, shown, attributes = table.get(subject.casefold(), (None, subject, {}))
        table[subject.casefold()] = (note_id, shown, {**attributes, attribute: value})
        touched[subject.casefold()] = max(touched.get(subject.casefold(), 1), fact.importance)
    texts = {key: fact_note(*table[key][1:]) for key in touched}
    current = {note.id: note.text for note in notes}
    size = notes_size(notes) + sum(len(texts[k]) - len(current.get(table[k][0], "")) for k in touched)
    evict = []
    for note in notes:  # least recently written first
        key = (parse_fact_note(note.text) or ("",))[0].casefold()
        if size <= budget:
            break
        if key and key not in touched:
            evict.append(Op("DELETE", note_id=note.id, eviction=True))
            size -= len(note.text)
    writes = [
        Op("UPDATE", texts[k], table[k][0], importance) if table[k][0] else Op("ADD", texts[k], None, importance)
        for k, importance in touched.items()
    ]
    return evict + writes or [Op("NOOP")]


class FactsWriter(TypedWriter):
    """Keyed facts (see the module docstring): one LM call per task."""

    signature_type, item, output_field = ExtractFacts, KeyFact, "facts"
    abilities = Abilities(
        "extracts facts (subject, attribute, value) from each task; code keeps one note per subject with the "
        "newest value of each attribute and drops the oldest subjects when the budget is full"
    )

    @staticmethod
    def to_write(notes, value, budget: int) -> Write:
        """The write a ``facts`` output (a ``KeyFact`` list, or its JSON text) makes of ``notes``."""
        try:
            facts = KeyFacts.validate_json(value) if isinstance(value, str) else KeyFacts.validate_python(value)
        except pydantic.ValidationError as err:
            return Write(error=f"facts do not match the KeyFact type: {str(err).splitlines()[0][:200]}", raw=str(value))
        raw = value if isinstance(value, str) else json.dumps(to_jsonable_python(value))
        return Write(upsert_ops(list(notes), facts, budget), "", raw)
