"""Run one rollout of an installed promptmem verifiers package through verifiers' own env
loading and episode runner, and print what verifiers recorded as JSON (rewards, metrics, the
policy's replies in call order, the rollout's info). Usage: TASKSET_ID BASE_URL MODEL."""

import asyncio
import json
import sys

import verifiers.v1 as vf


async def rollout(taskset_id: str, base_url: str, model: str) -> dict:
    env = vf.load_environment(vf.resolve_env_config({"taskset": {"id": taskset_id}}))
    task = next(iter(env.taskset))
    context = vf.ModelContext(
        model=model,
        client=vf.EvalClientConfig(base_url=base_url, api_key_var="OPENAI_API_KEY"),
        sampling=vf.SamplingConfig(temperature=0.0, max_tokens=256),
    )
    async with env.serving():
        episode = await env.run_episode(task, context)
    [trace] = episode.traces
    return {
        "ok": episode.ok,
        "errors": [e.message for e in [*episode.errors, *trace.errors]],
        "env": type(env).__name__,
        "stream": task.data.stream,
        "reward": trace.reward,
        "rewards": {name: [r.score, r.weight] for name, r in trace.rewards.items() if r},
        "metrics": dict(trace.metrics),
        "stop": trace.stop_condition,
        "branch_replies": [branch.messages[-1].content for branch in trace.branches],
        "info": trace.info,
    }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(rollout(*sys.argv[1:4]))))
