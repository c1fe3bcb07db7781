"""A trained student written back as a GGUF: the tiny embedded student round-trips through
transformers and llama.cpp with the same greedy output, and llama.cpp's quantizer accepts it."""

import logging

import pytest

pytest.importorskip("transformers")
pytest.importorskip("gguf")
pytestmark = pytest.mark.local_model

PROMPT = "The three primary colors are"


def test_a_student_exported_to_gguf_answers_as_the_checkpoint_does_and_quantizes(tmp_path, capsys):
    from llama_cpp import Llama
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from promptmem.distill.gguf_export import export_gguf, file_type, quantize
    from promptmem.distill.students import resolve_student
    from promptmem.lm.embedded import model_path

    checkpoint, original = resolve_student("smollm2-135m"), model_path("smollm2-135m")
    exported = export_gguf(checkpoint, original, tmp_path / "student.gguf")
    assert file_type(exported) == 0 and not list(tmp_path.glob("*.partial"))  # F32, renamed into place

    tokenizer = AutoTokenizer.from_pretrained(checkpoint)
    ids = tokenizer(PROMPT, return_tensors="pt").input_ids
    generated = AutoModelForCausalLM.from_pretrained(checkpoint).generate(ids, max_new_tokens=10, do_sample=False)
    expected = tokenizer.decode(generated[0, ids.shape[1] :], skip_special_tokens=True)
    served = Llama(model_path=str(exported), n_ctx=256, n_threads=1, verbose=False)
    assert served.create_completion(PROMPT, max_tokens=10, temperature=0)["choices"][0]["text"] == expected

    llama_log = logging.getLogger("llama-cpp-python")
    llama_log.setLevel(logging.NOTSET)  # as in a process that has not loaded a model quietly yet
    capsys.readouterr()
    quantized = quantize(exported, tmp_path / "student-q.gguf", file_type(original))
    assert "converting to" not in capsys.readouterr().err and llama_log.level == logging.NOTSET  # no per-tensor log
    assert file_type(quantized) == file_type(original) and quantized.stat().st_size < exported.stat().st_size / 3
    answer = Llama(model_path=str(quantized), n_ctx=256, n_threads=1, verbose=False).create_completion(
        PROMPT, max_tokens=10, temperature=0
    )["choices"][0]["text"]
    assert answer.strip()


def test_an_export_names_the_tensor_a_checkpoint_lacks(tmp_path):
    from safetensors.torch import load_file, save_file

    from promptmem.distill.gguf_export import ExportError, export_gguf
    from promptmem.distill.students import resolve_student
    from promptmem.lm.embedded import model_path

    checkpoint = resolve_student("smollm2-135m")
    broken = tmp_path / "broken"
    broken.mkdir()
    tensors = load_file(str(checkpoint / "model.safetensors"))
    del tensors["model.layers.3.mlp.up_proj.weight"]
    save_file(tensors, str(broken / "model.safetensors"))
    with pytest.raises(ExportError, match="blk.3.ffn_up.weight"):
        export_gguf(broken, model_path("smollm2-135m"), tmp_path / "out.gguf")
    assert not (tmp_path / "out.gguf").exists()


def test_the_comparison_serves_an_embedded_student_as_a_q8_gguf_or_quantized_like_the_teacher(tmp_path):
    from promptmem.distill.gguf_export import file_type
    from promptmem.distill.pipeline import DistillConfig, served_spec
    from promptmem.distill.students import resolve_student
    from promptmem.lm.specs import LMConfig, local_gguf

    checkpoint, teacher = resolve_student("smollm2-135m"), LMConfig(spec="local:qwen2.5-coder-0.5b", threads=1)
    like = DistillConfig(student="smollm2-135m", serve_quantization="teacher")
    spec = served_spec(like, checkpoint, teacher, tmp_path / "student")
    assert spec == f"local:{tmp_path / 'student' / 'model.gguf'}"
    assert file_type(local_gguf(spec)) == file_type(local_gguf(teacher.spec)) == 15  # Q4_K_M, like the teacher
    assert [p.name for p in (tmp_path / "student").iterdir()] == ["model.gguf"]  # the F32 file is removed
    q8 = served_spec(DistillConfig(student="smollm2-135m"), checkpoint, teacher, tmp_path / "q8")
    assert file_type(local_gguf(q8)) == 7  # the default: Q8_0
    assert (
        served_spec(DistillConfig(student="smollm2-135m", serve="hf"), checkpoint, teacher, tmp_path)
        == f"hf:{checkpoint}"
    )
