"""The topic words of memory feedback: words that say what statements are about, not words every
memory rule or feedback line uses. Shared by the selection writer's feedback (which words set
the statements it kept but never needed apart from the needed ones) and the GEPA proposer's
check that a rule names a topic of the failures."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Sequence

WORD = re.compile(r"[a-z0-9]+")  # a word of memory feedback or a rule, lowercased
# words any memory rule or feedback line uses; a rule made only of these names no topic
GENERIC_WORDS = frozenset(
    """a about above after again all also always an and answer any are as ask at be been before being below both
    but by can change changed character context could current detail did do does each either every fact few for
    from further future given has have how i if important in information into is it its just keep kept know known
    later latest leave left less like list make may more most must need needed never new no not note now of old on
    once only or other out over question recent relevant remember rule same should so some state statement step
    still store such task than that the their them then there these they thing this those through to track up
    useful very was were what when where which while who whose why will with world worth would writer you your""".split()
)


def stem(word: str) -> str:
    """``word`` without a plural ``s`` (ports -> port; class stays)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


_GENERIC = frozenset(stem(w) for w in GENERIC_WORDS)


_COMPOUND = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")  # feature-flags, ops-637: the name of a thing


def topic_stems(text: str) -> set[str]:
    """The stems of ``text``'s words that can name a topic: letters only, three or more, not
    generic, not part of a hyphenated name ("feature-flags" names a service, not a topic)."""
    words = WORD.findall(_COMPOUND.sub(" ", text.lower()))
    return {stem(w) for w in words if w.isalpha() and len(w) > 2} - _GENERIC


def topic_words(sentence: str, feedback: Sequence[str]) -> set[str]:
    """The topics of ``feedback`` that ``sentence`` names (stems both use)."""
    return topic_stems(sentence) & topic_stems(" ".join(feedback))


def _names(texts: Sequence[str]) -> set[str]:
    """Stems only ever written capitalised (Diego, Falcon): names, not topics."""
    capitalised = {stem(w.lower()) for text in texts for w in re.findall(r"\b[A-Z][a-z]+\b", text)}
    return capitalised - {stem(w) for text in texts for w in re.findall(r"\b[a-z]+\b", text)}


def distinctive_topics(texts: Iterable[str], others: Iterable[str], top: int = 5) -> list[tuple[str, int]]:
    """The topic stems most of ``texts`` use and none of ``others`` do, with how many texts use
    each (two at least), most used first: what sets ``texts`` apart. Of stems used by exactly
    the same texts ("the build took 7 minutes": build, minute, took) only the first is named."""
    texts = list(texts)
    excluded = set().union(*(topic_stems(text) for text in others), _names(texts))
    used_by: dict[str, set[int]] = defaultdict(set)
    for i, text in enumerate(texts):
        for word in topic_stems(text) - excluded:
            used_by[word].add(i)
    ranked = sorted((w for w, users in used_by.items() if len(users) > 1), key=lambda w: (-len(used_by[w]), w))
    named: dict[frozenset[int], str] = {}
    for word in ranked:
        named.setdefault(frozenset(used_by[word]), word)
    return [(word, len(used_by[word])) for word in named.values()][:top]
