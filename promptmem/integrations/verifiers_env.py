"""promptmem streams as a verifiers environment (verifiers 0.4.0, the ``verifiers.v1`` API that
prime-rl consumes): one rollout is one stream, and every call the promptmem agent makes — the
actor on each question, the writer after each task — is one model turn of the policy.

The agent runs unchanged, in a worker thread, on a DSPy LM whose engine sends each call's
messages as a fresh-context turn (``PolicyChat`` relaunches on the new messages only, so each
call is its own branch: a training sample per actor or writer call, as promptmem's GRPO rows).
Notes live in the rollout's memory and carry from task to task. Rewards are those GRPO uses,
on the rollout's own calls: ``score``, the mean suite score of the answers (the actor's
reward without discovery), and ``writer``, the mean writer reward (notes recall of the next
``horizon`` questions where the suite knows their answers, else the realized credit).

An exported package (``promptmem export verifiers``) holds ``promptmem.json`` and its data;
it subclasses ``StreamTaskset`` with ``package`` set to its directory.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from statistics import mean
from typing import ClassVar

import dspy
import verifiers.v1 as vf
from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events
from openai import AsyncOpenAI
from verifiers.v1.dialects.chat import message_to_wire

from promptmem.evaluate import EvalConfig, make_eval_suite
from promptmem.lm.engine import text_of
from promptmem.programs.agent import in_process, resolve_agent
from promptmem.signals.pipeline import Pipeline
from promptmem.signals.role_rewards import RewardSettings, RoleRewards, check_one_call_writer
from promptmem.signals.traces import TraceRow, trace_stream
from promptmem.tasks import Stream, cap_observations

EXPORT_FORMAT = "promptmem.verifiers/1"
EXPORT_FILE = "promptmem.json"


@dataclass(frozen=True)
class Rollout:
    """What one stream's rollout earned: the two rewards and a few counts."""

    score: float  # mean suite score over the stream's questions (0 without questions)
    writer: float  # mean writer reward over the writes that have one (0 without)
    questions: int
    writes_rewarded: int
    usable_calls: int  # calls whose completion the agent could read (a trace row each)


class Setup:
    """An exported package's suite, agent and streams, rebuilt from its ``promptmem.json``."""

    def __init__(self, package: Path):
        self.package = Path(package)
        data = json.loads((self.package / EXPORT_FILE).read_text())
        if data.get("format") != EXPORT_FORMAT:
            raise ValueError(f"{self.package / EXPORT_FILE}: not a {EXPORT_FORMAT} file")
        config = data["eval"]
        for key in ("data", "agent"):  # files the export copied into the package
            if config.get(key) and (self.package / config[key]).is_file():
                config[key] = str(self.package / config[key])
        self.config = EvalConfig(**config)
        self.horizon, self.writer_weight = data["horizon"], data["writer_weight"]
        self.suite = make_eval_suite(self.config)
        self.agent = in_process(
            resolve_agent(self.config.agent, self.config.writer, self.config.buffer_share, self.config.actor),
            "a verifiers environment",
        )
        check_one_call_writer(self.agent)
        if self.agent.fills_window:
            raise ValueError("the full-context agent sizes its notes to an LM's window; export another agent")
        self.budget = self.config.budget or self.suite.notes_budget
        self.adapter = dspy.ChatAdapter()

    @cached_property
    def streams(self) -> list[Stream]:
        return cap_observations(
            self.suite.streams(self.config.streams, seed=self.config.seed), self.config.max_observation
        )

    def trace(self, index: int, lm: dspy.BaseLM) -> list[TraceRow]:
        """Run the agent over stream ``index`` on ``lm``: one row per call."""
        with dspy.context(lm=lm, adapter=self.adapter):
            return trace_stream(self.agent, self.streams[index], self.suite, self.budget, self.adapter, self.horizon)

    def rewards(self, index: int, rows: list[TraceRow]) -> Rollout:
        """The rollout's rewards, by ``RoleRewards`` (GRPO's reward) on its own completions."""
        answered = [row for row in rows if row.role == "actor" and row.score is not None]
        pipeline = Pipeline(self.agent, self.suite, None, self.adapter)
        settings = RewardSettings(horizon=self.horizon, discovery_weight=0.0)
        judge = RoleRewards(pipeline, answered, [self.streams[index]], settings)
        answers = [judge.reward(row, row.completion) for row in answered]
        writes = [
            value
            for row in rows
            if row.role == "writer"
            if (value := _known(judge.writer_recall(row, row.completion), row.credit)) is not None
        ]
        return Rollout(
            score=mean(answers) if answers else 0.0,
            writer=mean(writes) if writes else 0.0,
            questions=len(answers),
            writes_rewarded=len(writes),
            usable_calls=len(rows),
        )


def _known(first: float | None, second: float | None) -> float | None:
    return first if first is not None else second


class TurnEngine:
    """A DSPy engine that sends each call's messages to the policy as one turn of a verifiers
    interaction, from the agent's worker thread to the rollout's event loop."""

    supports_response_schema = False
    supported_params = ("temperature", "max_tokens", "seed", "stop")  # the run's sampling wins

    def __init__(self, chat, loop: asyncio.AbstractEventLoop):
        self.chat, self.loop = chat, loop
        self.replies: list[str] = []
        self.ended = ""  # why the interaction stopped answering ("" while it answers)

    def complete(self, request) -> Response:
        if self.ended:
            raise RuntimeError(f"the rollout ended: {self.ended}")
        messages = [{"role": "system", "content": text_of(request.system)}] if request.system else []
        messages += [{"role": m.role, "content": m.text or ""} for m in request.messages]
        segment = asyncio.run_coroutine_threadsafe(self.chat.turn(messages), self.loop).result()
        if segment.terminated:
            self.ended = "the interaction stopped (a turn, token or time limit)"
            raise RuntimeError(f"the rollout ended: {self.ended}")
        reply = segment.last_reply or ""
        self.replies.append(reply)
        return Response(
            id=None,
            model="verifiers/policy",
            message=Message.assistant([TextPart(reply)]),
            finish_reason="stop",
            usage=Usage(input_tokens=None, output_tokens=None),
        )

    def stream(self, request):
        return response_to_events(self.complete(request))


class PolicyChat(vf.Harness[vf.HarnessConfig]):
    """An in-process chat harness: each turn is one chat completion on exactly the messages
    of that turn (the agent's prompt for one call), through the run's interception endpoint.
    No subprocess, container or network beyond that endpoint."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, tool_interception_url=None):
        system, prompt = self.resolve_prompt(data)
        messages = [{"role": "system", "content": system}] if system else []
        messages += (
            [{"role": "user", "content": prompt}]
            if isinstance(prompt, str)
            else [message_to_wire(m) for m in prompt or []]
        )
        client = AsyncOpenAI(base_url=endpoint, api_key=secret)
        try:
            response = await client.chat.completions.create(model=ctx.model, messages=messages)
        finally:
            await client.close()
        return vf.ProgramResult(exit_code=0, stdout=response.choices[0].message.content or "", stderr="")

    async def resume(self, ctx, trace, runtime, endpoint, secret, mcp_urls, data, messages, tool_interception_url=None):
        """A fresh context per turn: the new messages alone, not the conversation so far."""
        return await self.launch(
            ctx,
            trace,
            runtime,
            endpoint,
            secret,
            mcp_urls,
            data.model_copy(update={"prompt": list(messages), "system_prompt": None}),
        )


class StreamData(vf.TaskData):
    stream: int  # the stream's index in the package's streams


class StreamTask(vf.Task[StreamData, vf.State, vf.TaskConfig]):
    """One stream of the package; its rewards are recorded by ``MemoryEnv.run``."""


class StreamTaskset(vf.Taskset[StreamTask, vf.TasksetConfig]):
    """The package's streams, one task each. Exported packages set ``package``."""

    package: ClassVar[Path]

    @cached_property
    def setup(self) -> Setup:
        return Setup(self.package)

    def load(self):
        return [
            StreamTask(StreamData(id=stream.id, stream=i), self.config.task)
            for i, stream in enumerate(self.setup.streams)
        ]


class MemoryEnvConfig(vf.EnvConfig):
    agent: vf.AgentConfig = vf.AgentConfig(runtime=vf.SubprocessConfig())  # in-process: no sandbox


class MemoryEnv(vf.Env[MemoryEnvConfig]):
    """One stream per episode: the promptmem agent on the policy, then GRPO's rewards."""

    async def run(self, task, agents) -> None:
        setup: Setup = self.taskset.setup
        index = task.data.stream
        async with agents.agent.interaction(task) as chat:
            engine = TurnEngine(chat, asyncio.get_running_loop())
            lm = dspy.LM("verifiers/policy", engine=engine, cache=False)
            rows = await asyncio.to_thread(setup.trace, index, lm)
        rollout = await asyncio.to_thread(setup.rewards, index, rows)
        trace = chat.trace
        trace.record_reward("score", rollout.score, 1.0)
        trace.record_reward("writer", rollout.writer, setup.writer_weight)
        trace.record_metrics(
            {
                "questions": rollout.questions,
                "writes_rewarded": rollout.writes_rewarded,
                "usable_calls": rollout.usable_calls,
                "turns": len(engine.replies),
            }
        )
        trace.info.update(stream_id=setup.streams[index].id, replies=engine.replies, ended=engine.ended)
