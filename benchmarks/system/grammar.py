"""Seconds per generated token under a JSON-schema grammar: llama.cpp's grammar over the whole
vocabulary (llama-cpp-python's ``Llama``) vs the grammar judging the likeliest tokens first
(``promptmem.lm.fast_grammar.TopKGrammarLlama``, what the local engine uses), greedy, same prompts,
alternating per prompt; outputs compared. Results: benchmarks/results/grammar.json.

    python -m benchmarks.system.grammar
"""

from __future__ import annotations

import argparse
import json
import time

from llama_cpp import Llama
from pydantic import create_model

from promptmem.files import write_json
from promptmem.lm.embedded import model_path
from promptmem.lm.fast_grammar import TOP_K, TopKGrammarLlama
from promptmem.programs.facts import FactsWriter

PROMPTS = (
    "payments-worker is now owned by Kwame. The standup is in room Juniper. geo-cache was "
    "migrated to us-east-2. The auth-proxy runs on port 8443 and its owner is Dana.",
    "Ticket 4411: search-indexer pages on disk usage; on-call this week is Bruno. Lunch was tacos. "
    "billing-api moved from port 7000 to 9000 after the deploy.",
)


def facts_schema() -> dict:
    """A JSON schema of the facts writer's output: a list of its typed facts."""
    return create_model("Output", facts=(list[FactsWriter.item], ...)).model_json_schema()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default="qwen2.5-coder-0.5b,qwen2.5-coder-1.5b")
    parser.add_argument("--max-tokens", type=int, default=160)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default="benchmarks/results/grammar.json")
    args = parser.parse_args()
    fmt = {"type": "json_object", "schema": facts_schema()}
    rows = []
    for name in args.models.split(","):
        engines = {
            cls.__name__: cls(
                model_path=str(model_path(name)),
                n_ctx=2048,
                n_threads=args.threads,
                n_threads_batch=args.threads,
                verbose=False,
                seed=0,
            )
            for cls in (Llama, TopKGrammarLlama)
        }
        totals = {label: [0.0, 0] for label in engines}
        same = 0
        for prompt in PROMPTS:
            messages = [
                {"role": "system", "content": "Extract the facts worth remembering, as JSON."},
                {"role": "user", "content": prompt},
            ]
            texts = []
            for label, llama in engines.items():
                llama.create_chat_completion(messages=messages, max_tokens=1)  # prompt cached: time generation only
                start = time.perf_counter()
                out = llama.create_chat_completion(
                    messages=messages, max_tokens=args.max_tokens, temperature=0, response_format=fmt
                )
                totals[label][0] += time.perf_counter() - start
                totals[label][1] += out["usage"]["completion_tokens"]
                texts.append(out["choices"][0]["message"]["content"])
            same += texts[0] == texts[1]
        ms = {label: round(1000 * seconds / tokens, 1) for label, (seconds, tokens) in totals.items()}
        rows.append(
            {
                "model": name,
                "tokens": totals["Llama"][1],
                "ms_per_token_full_grammar": ms["Llama"],
                "ms_per_token_top_k_grammar": ms["TopKGrammarLlama"],
                "speedup": round(ms["Llama"] / ms["TopKGrammarLlama"], 2),
                "same_output": f"{same}/{len(PROMPTS)}",
            }
        )
        for llama in engines.values():
            llama.close()
    write_json(
        args.out,
        {"benchmark": "grammar", "top_k": TOP_K, "threads": args.threads, "max_tokens": args.max_tokens, "rows": rows},
    )
    print(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
