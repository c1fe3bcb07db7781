"""Per-call grammar for writers: typed ops may name only the notes shown, and say something.

``NoteIdsAdapter`` is DSPy's JSONAdapter with two changes to the schema the local engine
decodes under (the prompt itself is unchanged, so its prefix stays reusable):

- the typed items a writer outputs lists of declare what the grammar needs
  (``item_grammar``, a ``promptmem.roles.ItemGrammar``); an item that names a note (an op:
  ``action`` and ``note_id``) becomes a choice between ``{ADD|NOOP, note_id ""}`` and
  ``{UPDATE|DELETE, note_id one of the shown ids}`` (the second only when notes are shown); the
  ids are read from the ``notes`` input (``[id] text`` lines);
- an output list of integers (the select writer's statement numbers) may hold only the
  numbers of the ``[n] …`` lines of the ``lines`` input, 1 to that many of them;
- an output list of declared items (ops, facts) has between 1 and ``MAX_ITEMS`` items: greedy decoding of a small model otherwise takes the
  empty list, the grammar's easy way out, for every task (keeping the notes as they are is
  said explicitly: a NOOP, or restating a fact the notes hold), or repeats items until the
  token limit cuts it off.

Under a grammar, output that is not complete JSON was cut at the token limit: for a list
of ops or facts, ``parse`` then raises ``AdapterParseError`` rather than let DSPy's JSON repair
close a value cut in the middle (the writers keep the complete items).
"""

from __future__ import annotations

import copy
import json
from typing import get_args, get_origin

import dspy
import pydantic
from dspy.utils.exceptions import AdapterParseError

from promptmem.memory import shown_ids
from promptmem.roles import ItemGrammar

_IDS_KEY = "_promptmem_note_ids"  # carries the ids from __call__ to the response format
_NUMBERS_KEY = "_promptmem_line_numbers"  # and the numbers of the lines shown


def item_grammars(signature) -> dict[str, ItemGrammar]:
    """The typed items the signature outputs lists of, by their schema name, with what each
    declares the grammar needs (``item_grammar``; items without one are left alone)."""
    items = {}
    for field in signature.output_fields.values():
        args = get_args(field.annotation)
        if get_origin(field.annotation) is list and args and isinstance(args[0], type):
            grammar = getattr(args[0], "item_grammar", None)
            if isinstance(grammar, ItemGrammar):
                items[args[0].__name__] = grammar
    return items


def writes_items(signature) -> bool:
    """The signature outputs a list of declared items (ops, facts)."""
    return bool(item_grammars(signature))


MAX_ITEMS = 6  # ops or facts per write: ~30 tokens each, well inside the 256-token default


def _narrowed_item(schema: dict, grammar: ItemGrammar, ids: list[str]) -> dict:
    """An item naming a note: ids "" for the actions that name none, else one of ``ids``."""
    props = schema["properties"]
    actions = props[grammar.action_field].get("enum", [])

    def variant(chosen: list[str], note_id: dict) -> dict:
        action = {"type": "string", "enum": chosen}
        return {**schema, "properties": {**props, grammar.action_field: action, grammar.id_field: note_id}}

    variants = [variant([a for a in actions if a not in grammar.naming], {"type": "string", "enum": [""]})]
    if ids:
        variants.append(variant([a for a in actions if a in grammar.naming], {"type": "string", "enum": ids}))
    return variants[0] if len(variants) == 1 else {"anyOf": variants}


def narrow_note_ids(schema: dict, ids: list[str], items: dict[str, ItemGrammar]) -> dict:
    """A copy of ``schema`` whose top-level lists of ``items`` (``item_grammars``) hold 1 to
    ``MAX_ITEMS`` of them, and whose items that name a note accept only ``ids``."""
    schema = copy.deepcopy(schema)
    defs = schema.get("$defs") or {}
    for prop in (schema.get("properties") or {}).values():
        item = prop.get("items") or {}
        name = item.get("$ref", "").rpartition("/")[2] or item.get("title", "")
        if prop.get("type") != "array" or name not in items:
            continue
        prop.update(minItems=1, maxItems=MAX_ITEMS)
        if items[name].id_field and name in defs:
            defs[name] = _narrowed_item(defs[name], items[name], ids)
        elif items[name].id_field:
            prop["items"] = _narrowed_item(item, items[name], ids)
    return schema


def narrow_numbers(schema: dict, numbers: list[int]) -> dict:
    """A copy of ``schema`` whose top-level lists of integers accept only ``numbers`` (each
    list 1 to ``len(numbers)`` long); unchanged when there are no numbers."""
    schema = copy.deepcopy(schema)
    for prop in (schema.get("properties") or {}).values() if numbers else ():
        if prop.get("type") == "array" and (prop.get("items") or {}).get("type") == "integer":
            prop.update(items={"type": "integer", "enum": numbers}, minItems=1, maxItems=len(numbers))
    return schema


def _shown(inputs: dict) -> dict:
    """The per-call grammar's facts about ``inputs``: the note ids and the line numbers shown."""
    return {
        _IDS_KEY: shown_ids(inputs.get("notes")),
        _NUMBERS_KEY: [int(n) for n in shown_ids(inputs.get("lines")) if n.isdigit()],
    }


class NoteIdsAdapter(dspy.JSONAdapter):
    """JSONAdapter whose response schema lets typed ops name only the ids in the ``notes``
    input, a list of numbers only the numbers of the ``lines`` input, and requires a list of
    ops or facts to say something (see the module docstring)."""

    def __call__(self, lm, lm_kwargs, signature, demos, inputs):
        return super().__call__(lm, {**lm_kwargs, **_shown(inputs)}, signature, demos, inputs)

    async def acall(self, lm, lm_kwargs, signature, demos, inputs):
        return await super().acall(lm, {**lm_kwargs, **_shown(inputs)}, signature, demos, inputs)

    def _prepare_response_format(self, lm, lm_kwargs, signature):
        ids, numbers = lm_kwargs.pop(_IDS_KEY, []), lm_kwargs.pop(_NUMBERS_KEY, [])
        super()._prepare_response_format(lm, lm_kwargs, signature)
        format_ = lm_kwargs.get("response_format")
        if not (isinstance(format_, type) and issubclass(format_, pydantic.BaseModel)):
            return
        schema = format_.model_json_schema()
        narrowed = narrow_numbers(narrow_note_ids(schema, ids, item_grammars(signature)), numbers)
        if narrowed != schema:
            model = pydantic.create_model(format_.__name__, __base__=format_)
            model.model_json_schema = lambda *args, **kwargs: narrowed
            lm_kwargs["response_format"] = model

    def parse(self, signature, completion):
        if writes_items(signature):
            try:
                json.loads(completion)
            except ValueError:
                raise AdapterParseError(
                    adapter_name=type(self).__name__,
                    signature=signature,
                    lm_response=completion,
                    message="not complete JSON: cut at the token limit?",
                ) from None
        return super().parse(signature, completion)
