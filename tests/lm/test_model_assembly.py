"""Assembly and integrity checks of embedded models, on small fake part packages."""

import hashlib
import sys

import pytest

from promptmem.lm import embedded as local_models
from promptmem.lm.embedded import LocalModel, LocalModelError, model_path


@pytest.fixture
def fake_model(tmp_path, monkeypatch):
    """A model split over two importable 'part' packages, registered as 'fake'."""
    site = tmp_path / "site"
    chunks = [b"GGUF" + b"a" * 1000, b"b" * 777]
    for i, chunk in enumerate(chunks, start=1):
        (site / f"fakepart{i}" / "data").mkdir(parents=True)
        (site / f"fakepart{i}" / "__init__.py").write_text("")
        (site / f"fakepart{i}" / "data" / f"part{i:02d}.bin").write_bytes(chunk)
    monkeypatch.syspath_prepend(str(site))
    monkeypatch.setenv("PROMPTMEM_CACHE", str(tmp_path / "cache"))
    whole = b"".join(chunks)
    model = LocalModel(
        "fake",
        "fake.gguf",
        ("fakepart1", "fakepart2"),
        ("data/part01.bin", "data/part02.bin"),
        len(whole),
        hashlib.sha256(whole).hexdigest(),
        "pip install fake",
    )
    monkeypatch.setitem(local_models.LOCAL_MODELS, "fake", model)
    return model, whole, site


def test_assembles_verifies_and_reuses(fake_model):
    model, whole, _ = fake_model
    path = model_path("fake")
    assert path.read_bytes() == whole
    assert not any("fakepart" in name for name in sys.modules)  # located, never imported
    stamp_mtime = (path.parent / "fake.gguf.verified.json").stat().st_mtime
    assert model_path("fake") == path
    assert (path.parent / "fake.gguf.verified.json").stat().st_mtime == stamp_mtime


def test_hash_mismatch_is_a_clear_error_and_leaves_no_file(fake_model, monkeypatch):
    model, _, site = fake_model
    (site / "fakepart2" / "data" / "part02.bin").write_bytes(b"c" * 777)
    with pytest.raises(LocalModelError, match="failed its integrity check") as err:
        model_path("fake")
    assert model.sha256 in str(err.value) and "--force-reinstall" in str(err.value)
    assert not list((local_models.cache_dir() / "models").glob("fake.gguf*"))


def test_missing_package_and_unknown_model(fake_model, monkeypatch):
    model, _, _ = fake_model
    monkeypatch.setitem(
        local_models.LOCAL_MODELS,
        "fake",
        LocalModel(**{**model.__dict__, "packages": ("fakepart1", "not_installed_part")}),
    )
    with pytest.raises(LocalModelError, match="'not_installed_part' is not installed.*pip install fake"):
        model_path("fake")
    with pytest.raises(LocalModelError, match="unknown local model 'gpt5'"):
        model_path("gpt5")
