"""``promptmem judge``: add the LLM-judge score J to a finished eval run.

Reads ``OUT/streams/agent/*.json``, judges every headline question with any LM spec, and
writes ``OUT/judge.json`` (J overall, averaged per stream as the score is, and per value of
the suite's breakdown keys). Judgments are cached in ``OUT/judge_cache.json`` so an
interrupted judge run resumes.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from statistics import mean

import dspy

from promptmem.failures import stop_for
from promptmem.files import read_json, write_json
from promptmem.lm.specs import LMConfig
from promptmem.programs.judge import Judge
from promptmem.resume import read_finished

JUDGE_LM = LMConfig(max_tokens=32)  # the judge's default LM: a verdict is one word


def _judged(judge: Judge, record) -> float:
    """The judge's verdict on one answer; an LM call that failed stops the run (``LMUnavailable``
    with what to fix, or how to go on: the verdicts so far are cached)."""
    try:
        return judge(question=record.question, gold=" | ".join(record.gold), answer=record.answer)
    except Exception as err:  # noqa: BLE001 - sorted by promptmem.failures
        stop = stop_for(err, "judge", "the verdicts so far are kept in judge_cache.json: rerun to go on")
        if stop is None:
            raise
        raise stop from err


def judge_run(
    out: str | Path,
    lm: dspy.BaseLM,
    adapter: dspy.Adapter | None = None,
    breakdown_keys: tuple[str, ...] = ("category_name",),
) -> dict:
    """Judge every headline question of the agent's streams in ``out``; returns judge.json."""
    out = Path(out)
    paths = sorted((out / "streams" / "agent").glob("*.json"))
    if not paths:
        raise ValueError(f"{out}: no finished streams under streams/agent/ (run `promptmem eval` first)")
    cache_path = out / "judge_cache.json"
    cache = read_json(cache_path, "delete it to judge every answer again") if cache_path.exists() else {}
    judge, per_stream, groups = Judge(), {}, defaultdict(list)
    with dspy.context(lm=lm, adapter=adapter or dspy.ChatAdapter()):
        for path in paths:
            result = read_finished(path)
            scores = []
            for r in result.records:
                if r.score is None or not r.meta.get("headline", True):
                    continue
                key = f"{result.stream_id}/{r.task_id}"
                if key not in cache:
                    cache[key] = _judged(judge, r)
                    write_json(cache_path, cache, indent=None)
                scores.append(cache[key])
                for name in breakdown_keys:
                    if name in r.meta:
                        groups[f"{name}={r.meta[name]}"].append(cache[key])
            per_stream[result.stream_id] = round(mean(scores), 4) if scores else 0.0
    report = {
        "j": round(mean(per_stream.values()), 4),
        "per_stream": per_stream,
        "breakdown": {k: {"n": len(v), "j": round(mean(v), 4)} for k, v in sorted(groups.items())},
        "judge_lm": getattr(lm, "model", str(lm)),
    }
    write_json(out / "judge.json", report)
    return report
