"""A compact instruction proposer for GEPA, sized for small reflection models.

GEPA's default reflection prompt shows every predictor call of a minibatch (a stream is
dozens of calls, each with the notes in full) and asks for whole new instructions; a 1.5B
reflection model drowns in the input and, asked to rewrite, drifts (measured here: it wrote
memory ops instead of instructions, one op repeated until the token limit). This proposer
shows what the step can do, the current instructions and the concrete failures the metric's
per-role feedback already names, deduplicated and capped, and asks for a few rules; rules
that repeat one already proposed or in the instructions, or ask for what the step cannot do
("update the notes" to a writer that can only choose statements), are dropped before they cost
a metric call, and so are rules that point the wrong way ("keep" a topic only never-needed
statements used, "leave out" a kind later questions needed). Its rules come from one of two
sources, named when it is made (``RULE_SOURCES``): a reflection model's sample (``"lm"``) or the
feedback's topic counts, read straight off (``"topics"``, no model). Candidates grow by one
checked sentence per accepted step.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, get_args

import dspy

from promptmem.failures import describe
from promptmem.files import read_json, write_json
from promptmem.roles import ACTOR_ABILITIES, WRITER_ABILITIES, Abilities, role_of
from promptmem.signals.select_feedback import feedback_topics
from promptmem.signals.topics import WORD, stem, topic_stems, topic_words

RuleSource = Literal["lm", "topics"]
RULE_SOURCES: tuple[str, ...] = get_args(RuleSource)
MAX_RULE_CHARS = 300
SAME_RULE = 0.7  # word-set overlap (Jaccard) at which two rules count as one
ECHO_WORDS = 6  # a rule that copies this many consecutive words of a feedback line echoes it
_OP_LIKE = re.compile(r"\b(?:ADD|UPDATE|DELETE|NOOP)\b.*\b(?:ADD|UPDATE|DELETE|NOOP)\b")
_SENTENCE_END = re.compile(r"(?<!\be\.g\.)(?<!\bi\.e\.)(?<=[.!?])\s")
_KEEPING = r"keep|store|record|remember|save|retain|include"
_VERB = re.compile(
    rf"\b(?P<out>leave out|drop|omit|skip|ignore|exclude|discard|avoid|(?:do not|don't|never|not) (?:{_KEEPING}))\b"
    rf"|\b(?:{_KEEPING})\b"
)


class ProposeRules(dspy.Signature):
    """An agent keeps notes across a stream of tasks. One of its steps follows the current
    instructions and made the mistakes listed. Propose a few DIFFERENT new rules for that step,
    each a single plain-English sentence the step can act on (see what it can do). Each rule
    names the kind of statement it is about, by topic, as the mistakes show it: the kinds later
    questions needed, or the kinds that were kept but never needed (e.g. "Keep every statement
    about <topic>." or "Leave out statements about <topic>."). Do not repeat people's names or
    exact values from the mistakes, and do not write notes or operations."""

    step: str = dspy.InputField(desc="which step the instructions drive and what it can do")
    current_instructions: str = dspy.InputField()
    mistakes: str = dspy.InputField(desc="what went wrong, one per line")
    rules: list[str] = dspy.OutputField(desc="3 different rules, one sentence each, each naming a topic")


def failure_lines(items: Sequence[Mapping[str, Any]]) -> list[str]:
    """The distinct feedback lines of a component's reflective dataset, first seen first."""
    lines: list[str] = []
    for item in items:
        for line in str(item.get("Feedback", "")).splitlines():
            line = line.strip()
            if line and line not in lines:
                lines.append(line)
    return lines


def shown_mistakes(lines: Sequence[str], max_lines: int, max_chars: int) -> str:
    """What the reflection LM is shown of the feedback: the first ``max_lines`` lines, each cut
    to ``max_chars`` (the checks read them whole)."""
    return "\n".join(line[:max_chars] for line in lines[:max_lines])


def _words(text: str) -> frozenset[str]:
    return frozenset(WORD.findall(text.lower()))


def same_rule(a: str, b: str) -> bool:
    """Whether two rules say the same thing (their word sets overlap by ``SAME_RULE`` or more)."""
    x, y = _words(a), _words(b)
    return bool(x and y) and len(x & y) / len(x | y) >= SAME_RULE


def echoes(sentence: str, feedback: Sequence[str]) -> bool:
    """Whether ``sentence`` repeats a feedback line (the same words, or ``ECHO_WORDS``
    consecutive words of one) instead of abstracting it."""
    words = WORD.findall(sentence.lower())
    runs = {" ".join(words[i : i + ECHO_WORDS]) for i in range(len(words) - ECHO_WORDS + 1)}
    for line in feedback:
        copied = " ".join(WORD.findall(line.lower()))
        if same_rule(sentence, line) or any(run in copied for run in runs):
            return True
    return False


def _needed_and_unneeded(kinds: Counter, words: Counter) -> tuple[set[str], Counter]:
    """Of the feedback's topic counts (``feedback_topics``): the stems of the needed kinds, and
    the never-needed topics that are not also a needed kind, with their counts."""
    needed = {word for kind in kinds for word in topic_stems(kind)}
    return needed, Counter({word: n for word, n in words.items() if stem(word) not in needed})


def kept_and_left_out(sentence: str) -> tuple[set[str], set[str]]:
    """The topic stems ``sentence`` asks to keep and those it asks to leave out: each verb
    ("keep", "drop", "do not store" ...) governs the words up to the next one; words before
    the first are kept ("Keep ports; drop builds": {port}, {build})."""
    text = sentence.lower()
    verbs = list(_VERB.finditer(text))
    kept, left = topic_stems(text[: verbs[0].start()] if verbs else text), set()
    for verb, following in zip(verbs, verbs[1:] + [None]):
        words = topic_stems(text[verb.end() : following.start() if following else len(text)])
        (left if verb.group("out") else kept).update(words)
    return kept, left


def contradiction(sentence: str, feedback: Sequence[str]) -> str:
    """Why ``sentence`` points the wrong way by ``feedback``'s topic counts ("" if it does not):
    leaving out a kind later questions needed, or keeping only topics that never-needed
    statements used."""
    needed, unneeded = _needed_and_unneeded(*feedback_topics(list(feedback)))
    kept, left = kept_and_left_out(sentence)
    if wrong := sorted(left & needed):
        return f"leaves out what later questions needed ({', '.join(wrong)})"
    wrong = sorted(kept & {stem(word) for word in unneeded})
    return f"keeps what no question needed ({', '.join(wrong)})" if wrong and not kept & needed else ""


def topic_rules(feedback: Sequence[str]) -> list[str]:
    """The rules read off ``feedback``'s topic counts, most counted first: keep every statement
    of a kind later questions needed, leave out a topic only never-needed ones used."""
    kinds, words = feedback_topics(list(feedback))
    _, unneeded = _needed_and_unneeded(kinds, words)
    ranked = [(n, f"Keep every statement about {kind}.") for kind, n in kinds.items() if kind != "other"]
    ranked += [(n, f"Leave out statements about {word}.") for word, n in unneeded.items()]
    return [rule for _, rule in sorted(ranked, key=lambda pair: -pair[0])]


def rule_problem(
    text: str, instructions: str, abilities: Abilities, seen: Sequence[str] = (), feedback: Sequence[str] = ()
) -> str:
    """Why the first sentence of ``text`` is not worth a metric call ("" if it is): empty, too
    long, op syntax, an echo of a ``feedback`` line, asking for an action the step cannot take,
    already in the instructions or among ``seen`` rules, or, given ``feedback``, naming no topic
    of it ("keep relevant facts": generic rules changed nothing in every run measured) or
    pointing the wrong way by its topic counts (``contradiction``)."""
    sentence = first_sentence(text)
    if not sentence:
        return "empty"
    if len(sentence) > MAX_RULE_CHARS:
        return f"longer than {MAX_RULE_CHARS} characters"
    if _OP_LIKE.search(sentence):
        return "memory operations, not a rule"
    if echoes(sentence, feedback):
        return "repeats the feedback, not a rule"
    lowered = " " + " ".join(WORD.findall(sentence.lower()))
    blocked = next((word for word in abilities.cannot if f" {word}" in lowered), None)
    if blocked:
        return f"asks for what the step cannot do ({blocked!r})"
    known = re.split(r"(?<=[.!?])\s|\n", instructions)
    if sentence.lower() in instructions.lower() or any(same_rule(sentence, old) for old in known):
        return "already in the instructions"
    if any(same_rule(sentence, old) for old in seen):
        return "duplicate of an earlier proposal"
    if feedback and not topic_words(sentence, feedback):
        return "names no topic of the failures"
    return contradiction(sentence, feedback)


def first_sentence(text: str) -> str:
    return _SENTENCE_END.split(" ".join(str(text).split()), maxsplit=1)[0].strip()


def usable_rule(text: str, instructions: str, abilities: Abilities = WRITER_ABILITIES) -> str | None:
    """The first sentence of ``text`` if it reads as a new rule the step can act on, else None."""
    return None if rule_problem(text, instructions, abilities) else first_sentence(text)


class CompactProposer:
    """GEPA ``instruction_proposer``: per component to update, one short reflection call that
    samples a few rules; duplicates and rules the step cannot act on are dropped (with the
    reason, in ``log``) and the first survivor is appended to the instructions, the others
    queued for the component's next turn: ``rules="lm"``, sampled by ``reflection_lm``. With
    ``rules="topics"`` (and no ``reflection_lm``) the rules are ``topic_rules``, read off each
    minibatch's feedback afresh (every rule, most counted first; none queued; only the rule
    taken and those refused for what they say are logged). A component with no failures, a
    failed call or no usable rule keeps its instructions.

    ``abilities`` maps a component (predictor) name to what its step can do; by default the
    generic writer's and actor's. With ``state_path`` (a JSON file in the run directory) the
    log and the queued rules are written there whenever GEPA saves its checkpoint (the
    proposer is also a GEPA callback: ``on_state_saved``) and read back on start, so a resumed
    run proposes as the uninterrupted one did from that checkpoint, and its ``report`` counts
    the proposals made before the interruption too.
    """

    def __init__(
        self,
        rules: RuleSource,
        reflection_lm: dspy.BaseLM | None = None,
        abilities: Mapping[str, Abilities] | None = None,
        max_lines: int = 8,
        max_chars: int = 200,
        state_path: str | Path | None = None,
    ):
        if rules not in RULE_SOURCES:
            raise ValueError(f"rules: {rules!r} is not a source of rules; choose one of {', '.join(RULE_SOURCES)}")
        if (rules == "lm") != (reflection_lm is not None):
            need = "needs a reflection_lm" if rules == "lm" else "reads the feedback's counts: give no reflection_lm"
            raise ValueError(f"rules={rules!r} {need}")
        self.rules: RuleSource = rules
        self.lm, self.max_lines, self.max_chars = reflection_lm, max_lines, max_chars
        self.abilities = dict(abilities or {})
        self.propose = dspy.Predict(ProposeRules)
        self.state_path = Path(state_path) if state_path else None
        saved = (
            read_json(self.state_path, "delete it to start the proposal log anew")
            if self.state_path and self.state_path.exists()
            else {}
        )
        # every proposal: component, rule, status, reason
        self.log: list[dict[str, str]] = saved.get("log", [])
        self._queued: dict[str, list[str]] = saved.get("queued", {})

    def on_state_saved(self, event: Any = None) -> None:
        """GEPA saved its checkpoint: save the log and the queue beside it (see the class)."""
        if self.state_path:
            write_json(self.state_path, {"log": self.log, "queued": self._queued}, indent=1)

    def _record(self, entry: dict[str, str]) -> None:
        self.log.append(entry)

    def _abilities(self, name: str) -> Abilities:
        return self.abilities.get(name) or (ACTOR_ABILITIES if role_of(name) == "actor" else WRITER_ABILITIES)

    def _rules(self, name: str, instructions: str, feedback: list[str]) -> list[str]:
        if self.rules == "topics":
            return topic_rules(feedback)
        with dspy.context(lm=self.lm):
            rules = self.propose(
                step=f"the {role_of(name) or 'actor'}, which {self._abilities(name).can}",
                current_instructions=instructions,
                mistakes=shown_mistakes(feedback, self.max_lines, self.max_chars),
            ).rules
        return [str(r) for r in (rules if isinstance(rules, list) else [rules])]

    def _sample(self, name: str, instructions: str, feedback: list[str]) -> list[str]:
        abilities = self._abilities(name)
        try:
            rules = self._rules(name, instructions, feedback)
        except Exception as err:  # noqa: BLE001 - an unusable proposal is skipped, not fatal
            self._record(
                {
                    "component": name,
                    "rule": "",
                    "status": "rejected",
                    "reason": f"reflection call failed: {describe(err)}",
                }
            )
            return []
        tried = [entry["rule"] for entry in self.log if entry["component"] == name and entry["status"] == "tried"]
        seen = tried + self._queued.get(name, [])
        kept = []
        for text in rules:
            reason = rule_problem(text, instructions, abilities, seen + kept, feedback)
            if self.rules == "topics" and (kept or reason.startswith(("duplicate", "already"))):
                continue  # topics: a count read again, or past the rule taken, is no new proposal
            self._record(
                {
                    "component": name,
                    "rule": first_sentence(text) or text[:200],
                    "status": "rejected" if reason else "queued",
                    "reason": reason,
                }
            )
            if not reason:
                kept.append(first_sentence(text))
        return kept

    def __call__(
        self,
        candidate: dict[str, str],
        reflective_dataset: Mapping[str, Sequence[Mapping[str, Any]]],
        components_to_update: list[str],
    ) -> dict[str, str]:
        proposals = {}
        for name in components_to_update:
            queue = [
                r for r in self._queued.get(name, []) if not rule_problem(r, candidate[name], self._abilities(name))
            ]
            if not queue:
                feedback = failure_lines(reflective_dataset.get(name, ()))
                queue = self._sample(name, candidate[name], feedback) if feedback else []
            if queue:
                rule, self._queued[name] = queue[0], queue[1:]  # topics: one rule, nothing queued
                self._record({"component": name, "rule": rule, "status": "tried", "reason": ""})
                proposals[name] = f"{candidate[name].rstrip()}\n{rule}"
        return proposals

    def report(self, accepted_instructions: Sequence[str] = (), examples: int = 5) -> dict:
        """Proposals made, distinct, rejected (by reason, with examples), tried and accepted
        (a tried rule that appears in ``accepted_instructions``, the instructions of the
        candidates GEPA kept)."""
        made = [e for e in self.log if e["status"] != "tried" and e["rule"]]
        rejected = [e for e in self.log if e["status"] == "rejected"]
        tried = [e["rule"] for e in self.log if e["status"] == "tried"]
        accepted = sorted({r for r in tried if any(r in text for text in accepted_instructions)})
        reasons: dict[str, list[str]] = {}
        for entry in rejected:
            reasons.setdefault(entry["reason"].split(" (")[0], []).append(entry["rule"])
        return {
            "made": len(made),
            "distinct": len(made) - sum(e["reason"].startswith(("duplicate", "already")) for e in rejected),
            "rejected": {
                reason: {"count": len(rules), "examples": rules[:examples]} for reason, rules in reasons.items()
            },
            "tried": len(tried),
            "accepted": accepted,
            "tried_examples": tried[:examples],
        }
