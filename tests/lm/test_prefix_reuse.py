"""Prefix reuse accounting: the prompt tokens llama.cpp serves from the previous prompt (the
real engine is in test_embedded_model_run)."""

from promptmem.lm.llama_cpp import reused_prefix


def test_reused_prefix_follows_llama_cpp_rule():
    assert reused_prefix([], [1, 2, 3]) == 0
    assert reused_prefix([1, 2, 9, 9], [1, 2, 3]) == 2
    assert reused_prefix([1, 2, 3, 4], [1, 2, 3]) == 2  # whole prompt cached: one token re-evaluated
    assert reused_prefix([1, 2, 3], [1, 2, 3, 4, 5]) == 3
