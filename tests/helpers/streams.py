"""Hand-made streams the suites, the hindsight labels and the feedback are tested on: a JSONL
stream with the documented meta (CRM) and a LoCoMo conversation (TINY)."""

import json

from promptmem.suites import JsonlSuite, LocomoSuite

CRM = {
    "stream_id": "crm",
    "tasks": [
        {
            "id": "t1",
            "observation": "Ana prefers email.",
            "question": None,
            "meta": {"states": [{"value": "email", "subject": "Ana"}]},
        },
        {"id": "t2", "observation": "Ben's desk is 4B. We met in Paris.", "question": None},
        {
            "id": "t3",
            "observation": "Ana now prefers phone calls.",
            "question": None,
            "meta": {"states": [{"value": "phone", "subject": "Ana"}]},
        },
        {
            "id": "t4",
            "observation": "",
            "question": "How does Ana want to be contacted?",
            "answer": ["phone", "by phone"],
            "scorer": "contains",
            "meta": {
                "subject": "Ana",
                "revealed_in": "t3",
                "updated_in": ["t3"],
                "stale": ["email"],
                "kind": "contact",
            },
        },
        {
            "id": "t5",
            "observation": "The vault code is 4417.",
            "question": "What is the vault code?",
            "answer": "4417",
            "meta": {"current": True, "revealed_in": ["t5"]},
        },
        {"id": "t6", "observation": "", "question": "Which city?", "answer": "Paris"},
    ],
}

# sessions out of order in the file (the loader sorts them), a shared photo, an adversarial question
TINY = {
    "sample_id": "tiny",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_2_date_time": "9 May 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I adopted a cat.", "blip_caption": "a photo of a cat"}
        ],
        "session_1_date_time": "8 May 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I moved to Lisbon. The weather is great."},
            {"speaker": "Ben", "dia_id": "D1:2", "text": "Nice, a new city!"},
        ],
    },
    "qa": [
        {"question": "Where did Ana move?", "answer": "Lisbon", "evidence": ["D1:1"], "category": 4},
        {"question": "What pet and city?", "answer": "cat, Lisbon", "evidence": ["D1:1; D2:1"], "category": 1},
        {"question": "What did Ana adopt?", "adversarial_answer": "a cat", "evidence": ["D2:1"], "category": 5},
        {"question": "Which hobby?", "answer": "painting; maybe pottery", "evidence": [], "category": 3},
    ],
}


def write_locomo(tmp_path, conversations=(TINY,)):
    """A LoCoMo file of ``conversations`` in ``tmp_path``."""
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(list(conversations)))
    return path


def jsonl_suite(tmp_path, stream=CRM) -> JsonlSuite:
    path = tmp_path / "streams.jsonl"
    path.write_text(json.dumps(stream) + "\n")
    return JsonlSuite(path)


def locomo_suite(tmp_path) -> LocomoSuite:
    return LocomoSuite(write_locomo(tmp_path))
