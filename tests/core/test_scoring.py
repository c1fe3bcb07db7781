import pytest

from promptmem.scoring import contains, exact, f1, normalize, numeric, score_answer


def test_normalize_keeps_versions_and_regions():
    assert normalize("The  Answer: eu-west-1.") == "answer eu-west-1"
    assert normalize("v3.4.1!") == "v3.4.1"


@pytest.mark.parametrize(
    "fn, pred, golds, expected",
    [
        (exact, "Paris.", ["paris"], 1.0),
        (exact, "in Paris", ["paris"], 0.0),
        (contains, "It is in Paris, France", ["paris"], 1.0),
        (contains, "Parisian", ["paris"], 0.0),
        (numeric, "about 1,200 units", ["1200"], 1.0),
        (numeric, "12", ["13"], 0.0),
        (numeric, "no number", ["13"], 0.0),
        (f1, "the red car", ["red car"], 1.0),
        (f1, "red", ["red car", "blue"], pytest.approx(2 / 3)),
        (f1, "", ["x"], 0.0),
    ],
)
def test_scorers(fn, pred, golds, expected):
    assert fn(pred, golds) == expected


def test_unknown_scorer_names_the_known_ones():
    with pytest.raises(ValueError, match="known: exact, f1, contains, numeric"):
        score_answer("bleu", "a", ["a"])
