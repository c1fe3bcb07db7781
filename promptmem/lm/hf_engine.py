"""A DSPy engine over a transformers checkpoint (``hf:PATH``): how students are evaluated.

Runs in-process on CPU (or the first GPU when torch sees one), with the checkpoint's chat
template; greedy at temperature 0. No constrained decoding: the adapter parses the text.
"""

from __future__ import annotations

import threading
from pathlib import Path

from dspy.lm15 import Message, Response, TextPart, Usage, response_to_events

from promptmem.lm.engine import text_of


class TransformersEngine:
    """Loads lazily, serves one call at a time."""

    supports_response_schema = False
    supported_params = ("temperature", "max_tokens", "seed")

    def __init__(self, path: Path, *, threads: int | None = None):
        if not (Path(path) / "config.json").is_file():
            raise FileNotFoundError(f"hf:{path}: no transformers checkpoint there (config.json missing)")
        self.path, self.threads = Path(path), threads
        self._model = self._tokenizer = None
        self._lock = threading.Lock()

    def _load(self):
        if self._model is None:
            import torch
            from transformers import AutoModelForCausalLM, AutoTokenizer

            if self.threads:
                torch.set_num_threads(self.threads)
            self._tokenizer = AutoTokenizer.from_pretrained(self.path)
            device = "cuda" if torch.cuda.is_available() else "cpu"
            dtype = torch.bfloat16 if device == "cuda" else torch.float32
            self._model = AutoModelForCausalLM.from_pretrained(self.path, dtype=dtype).to(device).eval()
        return self._model, self._tokenizer

    def complete(self, request) -> Response:
        import torch

        messages = [{"role": "system", "content": text_of(request.system)}] if request.system else []
        messages += [{"role": m.role, "content": m.text or ""} for m in request.messages]
        config = request.config
        with self._lock:
            model, tokenizer = self._load()
            ids = tokenizer.apply_chat_template(
                messages, add_generation_prompt=True, return_tensors="pt", return_dict=True
            ).to(model.device)
            sample = bool(config.temperature)
            if config.seed is not None:
                torch.manual_seed(config.seed)
            with torch.no_grad():
                out = model.generate(
                    **ids,
                    max_new_tokens=config.max_tokens or 256,
                    do_sample=sample,
                    temperature=config.temperature if sample else None,
                    top_p=None,
                    top_k=None,
                    pad_token_id=tokenizer.pad_token_id or tokenizer.eos_token_id,
                )
        prompt_len = ids["input_ids"].shape[1]
        new = out[0, prompt_len:]
        text = tokenizer.decode(new, skip_special_tokens=True)
        ended = bool(len(new)) and new[-1].item() == tokenizer.eos_token_id
        return Response(
            id=None,
            model=f"hf/{self.path.name}",
            message=Message.assistant([TextPart(text)]),
            finish_reason="stop" if ended or len(new) < (config.max_tokens or 256) else "length",
            usage=Usage(input_tokens=prompt_len, output_tokens=len(new)),
        )

    def stream(self, request):
        return response_to_events(self.complete(request))
