"""realmt.convert writes what realmt-convert writes."""
import os

import realmt
from conftest import run


def test_ctranslate2_export_equals_realmt_convert(bin_dir, work, tmp_path, monkeypatch):
    # CTranslate2 has no residual attention: a model trained without it.
    run(bin_dir, "realmt-train", "-t", "train.en", "train.fr", "-v", "vocab.spm", "vocab.spm", "-m", "plain.safetensors",
        "--enc-depth", 1, "--dec-depth", 1, "--dim-emb", 32, "--transformer-heads", 2, "--transformer-dim-ffn", 64,
        "--residual-attention-encoder", "none", "--residual-attention-decoder", "none",
        "--residual-attention-cross", "none", "--after", "3u", "--cpu-threads", 1, cwd=work)
    run(bin_dir, "realmt-convert", "--from", "realmt", "plain.safetensors", "--to", "ctranslate2", "-o", "cli-ct2",
        "--vocabs", "vocab.spm", cwd=work)
    monkeypatch.chdir(work)
    summary = realmt.convert("plain.safetensors", "py-ct2", from_format="realmt", to="ctranslate2", vocabs="vocab.spm")
    assert "ctranslate2" in summary.lower() or "py-ct2" in summary
    names = sorted(os.listdir("cli-ct2"))
    assert names == sorted(os.listdir("py-ct2")) and "model.bin" in names
    for name in names:
        with open(os.path.join("cli-ct2", name), "rb") as a, open(os.path.join("py-ct2", name), "rb") as b:
            assert a.read() == b.read(), name
