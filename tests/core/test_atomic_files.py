"""Atomic run files: a failed write leaves the old file whole and no temporary behind."""

import json

import pytest

from promptmem.files import write_json, write_text


def test_write_json_replaces_the_file_whole(tmp_path):
    path = tmp_path / "report.json"
    write_json(path, {"score": 0.5})
    write_json(path, {"score": 0.75})
    assert json.loads(path.read_text()) == {"score": 0.75}
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path, monkeypatch):
    path = tmp_path / "stream.json"
    write_json(path, {"records": [1, 2]})
    with pytest.raises(TypeError):
        write_json(path, {"records": object()})  # unserializable: fails before anything is written
    import os

    def killed(*args):
        raise KeyboardInterrupt  # as if interrupted between writing the temporary file and the rename

    monkeypatch.setattr(os, "replace", killed)
    with pytest.raises(KeyboardInterrupt):
        write_text(path, "half")
    assert json.loads(path.read_text()) == {"records": [1, 2]}
    assert [p.name for p in tmp_path.iterdir()] == ["stream.json"]


def test_a_manifest_names_a_missing_resized_or_changed_file(tmp_path):
    from promptmem.files import manifest_problems, write_manifest

    (tmp_path / "sub").mkdir()
    (tmp_path / "a.bin").write_bytes(b"abc")
    (tmp_path / "sub" / "b.json").write_text("{}")
    assert manifest_problems(tmp_path) == ["no readable promptmem-manifest.json"]
    write_manifest(tmp_path)
    assert manifest_problems(tmp_path) == []
    (tmp_path / "a.bin").write_bytes(b"abd")
    (tmp_path / "sub" / "b.json").write_text("{ }")
    assert manifest_problems(tmp_path) == ["a.bin fails its sha256 check", "sub/b.json has 3 bytes, expected 2"]
    (tmp_path / "a.bin").unlink()
    assert manifest_problems(tmp_path)[0] == "a.bin is missing"
