"""Student registry: aliases resolve to local checkpoints; anything missing is a clear error."""

import pytest

from promptmem.distill.students import StudentNotFound, resolve_student
from promptmem.files import manifest_problems


def test_alias_resolves_to_the_newest_cached_snapshot(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    snapshot = tmp_path / "models--Qwen--Qwen3-0.6B" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "config.json").write_text("{}")
    assert resolve_student("qwen-0.6b") == snapshot
    assert resolve_student("Qwen/Qwen3-0.6B") == snapshot
    assert resolve_student(str(snapshot)) == snapshot


def test_missing_weights_say_what_where_and_how(tmp_path, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    with pytest.raises(StudentNotFound) as err:
        resolve_student("qwen-4b")
    message = str(err.value)
    assert "Qwen/Qwen3-4B-Instruct-2507" in message and str(tmp_path) in message
    assert "huggingface-cli download Qwen/Qwen3-4B-Instruct-2507" in message
    with pytest.raises(StudentNotFound, match="unknown student 'gpt-9'"):
        resolve_student("gpt-9")
    with pytest.raises(StudentNotFound, match="holds no config.json"):
        resolve_student(str(tmp_path))


def test_hf_spec_without_a_checkpoint_is_a_clear_error(tmp_path):
    pytest.importorskip("transformers", reason="the distill extra is not installed")
    from promptmem.lm.specs import LMConfig, make_lm

    with pytest.raises(FileNotFoundError, match=f"hf:{tmp_path}: no transformers checkpoint"):
        make_lm(LMConfig(spec=f"hf:{tmp_path}"))


@pytest.mark.local_model
def test_embedded_student_is_dequantized_once_and_served_by_hf_spec():
    """SmolLM2-135M: GGUF -> transformers checkpoint -> an `hf:` LM that generates."""
    pytest.importorskip("transformers", reason="the distill extra is not installed")
    from promptmem.lm.specs import LMConfig, make_lm

    path = resolve_student("smollm2-135m")
    assert (path / "config.json").is_file() and resolve_student("smollm2-135m") == path
    (path / "config.json").write_text("{}")  # a damaged cache is rebuilt, not used
    assert resolve_student("smollm2-135m") == path and manifest_problems(path) == []
    lm = make_lm(LMConfig(spec=f"hf:{path}", max_tokens=24))
    (text,) = lm("Say hello.")
    assert text.strip()
    assert 0 < lm.history[-1]["usage"]["completion_tokens"] <= 24
