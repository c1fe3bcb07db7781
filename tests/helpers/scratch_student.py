"""A randomly initialized causal LM with a BPE tokenizer trained on the spot from synthetic-suite
text: a student made with no download, for the tests (tiny: the real SFT / GRPO / hf: paths in
seconds on CPU) and the GPU check (larger: real step times), which runs this file as a command:

    python tests/helpers/scratch_student.py OUT [--hidden 64 --layers 2 --heads 2 --vocab 600 --seed 0]
"""

from __future__ import annotations

import argparse
from pathlib import Path

CHAT_TEMPLATE = (
    "{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)
SPECIALS = ["<unk>", "<pad>", "<|im_start|>", "<|im_end|>"]


def corpus() -> list[str]:
    """Text in the shape of the pipeline's prompts: DSPy field markers, JSON, notes, ops."""
    from promptmem.suites import make_suite

    lines = [
        "[[ ## notes ## ]]",
        "[[ ## observation ## ]]",
        "[[ ## question ## ]]",
        '{"answer": "42"}',
        '{"operations": [{"action": "ADD", "note_id": "", "text": "port 8642"}]}',
        "ADD UPDATE DELETE NOOP",
        "Respond with a JSON object",
    ]
    for stream in make_suite("synthetic", tasks=12).streams(4, seed=7):
        for task in stream.tasks:
            lines += [task.observation, task.question or "", *task.answer]
    return lines


def make_scratch_student(
    out: Path, hidden: int = 64, layers: int = 2, heads: int = 2, vocab: int = 600, seed: int = 0
) -> Path:
    """Save a Qwen2-architecture model (random weights drawn with ``seed``; ``hidden`` wide,
    ``layers`` deep) and its tokenizer (``vocab`` tokens at most) to ``out``."""
    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM

    raw = Tokenizer(models.BPE(unk_token="<unk>"))
    raw.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    raw.decoder = decoders.ByteLevel()
    raw.train_from_iterator(
        corpus(),
        trainers.BpeTrainer(
            vocab_size=vocab, special_tokens=SPECIALS, initial_alphabet=pre_tokenizers.ByteLevel.alphabet()
        ),
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=raw, unk_token="<unk>", pad_token="<pad>", eos_token="<|im_end|>", bos_token=None
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    config = Qwen2Config(
        vocab_size=len(tokenizer),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=heads,
        num_key_value_heads=max(1, heads // 2),
        max_position_embeddings=8192,
        eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id,
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    torch.manual_seed(seed)
    Qwen2ForCausalLM(config).save_pretrained(out)
    tokenizer.save_pretrained(out)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description="Save a scratch student (random weights) to OUT.")
    parser.add_argument("out", type=Path)
    for name, default in (("hidden", 64), ("layers", 2), ("heads", 2), ("vocab", 600), ("seed", 0)):
        parser.add_argument(f"--{name}", type=int, default=default)
    args = parser.parse_args()
    make_scratch_student(args.out, args.hidden, args.layers, args.heads, args.vocab, args.seed)


if __name__ == "__main__":
    main()
