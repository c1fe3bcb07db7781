"""Parse a writer's memory operations from LM text, repairing what is safe to repair.

Accepted: a JSON list of ops, ``{"ops": [...]}``, a single op object, the same inside
markdown fences or as a Python literal, or one op per line
(``ADD <text>`` / ``UPDATE <id> <text>`` / ``DELETE <id>`` / ``NOOP``), also several run
together on one line. Anything else
becomes an error string; an unknown note id is left for the store to reject.
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass, field

from promptmem.memory import Op

_FENCE = re.compile(r"```[a-zA-Z]*\s*\n?(.*?)```", re.DOTALL)
_SYNONYMS = {
    "ADD": "ADD",
    "INSERT": "ADD",
    "CREATE": "ADD",
    "APPEND": "ADD",
    "UPDATE": "UPDATE",
    "EDIT": "UPDATE",
    "MODIFY": "UPDATE",
    "REPLACE": "UPDATE",
    "DELETE": "DELETE",
    "REMOVE": "DELETE",
    "DROP": "DELETE",
    "NOOP": "NOOP",
    "NONE": "NOOP",
    "NO-OP": "NOOP",
    "NO_OP": "NOOP",
    "SKIP": "NOOP",
}
_KIND_KEYS = ("op", "action", "type", "kind", "operation", "event")
_ID_KEYS = ("id", "note_id", "target", "memory_id")
_TEXT_KEYS = ("text", "content", "note", "value", "memory", "fact")
_BULLET = re.compile(r"^\s*(?:[-*•]|\d+[.)])\s*")
_LINE = re.compile(r"^\s*([A-Za-z_-]+)\b[:\s]*(.*)$")
_ID = re.compile(r"^\[?(n?\d+)\]?[:\s]*(.*)$", re.DOTALL)
# several ops run together on one line: "ADD a. UPDATE n2 b | DELETE n3" (upper-case keywords after
# a '.', ';' or '|' only, so note text such as "run DELETE n1 after the deploy" stays one ADD)
_INLINE_OP = re.compile(r"(?<=\S)\s*[.;|]\s+(?=(?:ADD|UPDATE|DELETE|NOOP)\b)")


@dataclass
class ParsedOps:
    ops: list[Op] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def normalize_id(raw: object) -> str | None:
    """``3``, ``"3"``, ``"n3"`` and ``"[n3]"`` all name note ``n3``."""
    if raw is None:
        return None
    text = str(raw).strip().strip("[]").strip()
    return f"n{text}" if text.isdigit() else text or None


def _op_from_dict(item: dict) -> Op | str:
    lowered = {str(k).lower(): v for k, v in item.items()}
    kind_raw = next((lowered[k] for k in _KIND_KEYS if k in lowered), None)
    kind = _SYNONYMS.get(str(kind_raw).strip().upper()) if kind_raw is not None else None
    if kind is None:
        return f"op without a known kind: {json.dumps(item)[:120]}"
    note_id = normalize_id(next((lowered[k] for k in _ID_KEYS if k in lowered), None))
    text = next((lowered[k] for k in _TEXT_KEYS if k in lowered), "")
    return Op(kind, "" if text is None else str(text), note_id)


def _op_from_line(line: str) -> Op | str | None:
    match = _LINE.match(line)
    kind = _SYNONYMS.get(match.group(1).upper()) if match else None
    if kind is None:
        return f"unparseable line: {line.strip()[:120]!r}" if line.strip() else None
    rest = match.group(2).strip()
    if kind in ("UPDATE", "DELETE"):
        id_match = _ID.match(rest)
        if not id_match:
            return f"{kind} without a note id: {line.strip()[:120]!r}"
        return Op(kind, id_match.group(2).strip(), normalize_id(id_match.group(1)))
    return Op(kind, rest if kind == "ADD" else "")


def _load_structured(text: str):
    for loader in (json.loads, ast.literal_eval):
        try:
            return loader(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return None


def parse_ops(text: str) -> ParsedOps:
    """Ops from a writer's raw output; never raises."""
    result = ParsedOps()
    fenced = _FENCE.search(text)
    body = (fenced.group(1) if fenced else text).strip()
    data = _load_structured(body) if body[:1] in "[{" else None
    if isinstance(data, dict):
        data = next((data[k] for k in ("ops", "operations", "memory_ops") if k in data), [data])
    items = data if isinstance(data, list) else None
    if items is None:
        items = [part for line in body.splitlines() for part in _INLINE_OP.split(_BULLET.sub("", line))]
    for item in items:
        if isinstance(item, dict):
            parsed = _op_from_dict(item)
        elif isinstance(item, str):
            parsed = _op_from_line(item)
        else:
            parsed = f"op is not an object or a line: {item!r}"[:140]
        if isinstance(parsed, Op):
            result.ops.append(parsed)
        elif parsed:
            result.errors.append(parsed)
    if not result.ops and not result.errors:
        result.errors.append("no operations found (write NOOP to keep the notes unchanged)")
    return result
