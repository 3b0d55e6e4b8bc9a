"""Bad input raises a Python exception carrying realmt's message (never a crash): missing
files, a vocabulary of another model, text that is not UTF-8, wrong types, bad options."""
import os
import shutil

import pytest

import realmt
from conftest import run


@pytest.fixture(scope="module")
def translator(tiny):
    return realmt.Translator(os.path.join(tiny, "model.safetensors"), vocabs=os.path.join(tiny, "vocab.spm"),
                             threads=1)


def test_missing_files(tiny, tmp_path):
    with pytest.raises(realmt.Error, match="model not found: .*nope.safetensors"):
        realmt.Translator(str(tmp_path / "nope.safetensors"), vocabs=os.path.join(tiny, "vocab.spm"))
    with pytest.raises(realmt.Error, match="nope.spm"):
        realmt.Translator(os.path.join(tiny, "model.safetensors"), vocabs=str(tmp_path / "nope.spm"))
    with pytest.raises(realmt.Error, match="nope"):
        realmt.convert(str(tmp_path / "nope"), str(tmp_path / "out.safetensors"), from_format="hf")


def test_vocabulary_of_another_model(bin_dir, tiny, tmp_path):
    run(bin_dir, "realmt-data", "vocab", "-i", os.path.join(tiny, "train.fr"), "-o", tmp_path / "other.spm",
        "--vocab-size", 14, "--model-type", "word")
    with pytest.raises(realmt.Error, match="other.spm"):
        realmt.Translator(os.path.join(tiny, "model.safetensors"), vocabs=str(tmp_path / "other.spm"))


def test_text_that_is_not_utf8(translator, work, monkeypatch):
    with pytest.raises(TypeError, match="source"):
        translator.translate_batch([b"the cat"])
    with pytest.raises(UnicodeEncodeError):
        translator.translate_batch(["the \udcff cat"])  # a lone surrogate: what os.fsdecode makes of bad bytes
    with pytest.raises(UnicodeEncodeError):
        translator.score_batch(["the \udcff cat"], ["le chat"])
    monkeypatch.chdir(work)
    with open("train.en", "ab") as f:
        f.write(b"the \xff\xfe cat\n")
    with open("train.fr", "ab") as f:
        f.write(b"le chat\n")
    with pytest.raises(realmt.Error, match="train.en.*UTF-8"):
        realmt.train({"train-sets": ["train.en", "train.fr"], "vocabs": ["vocab.spm", "vocab.spm"],
                      "model": "bad.safetensors", "dim-emb": 32, "enc-depth": 1, "dec-depth": 1,
                      "transformer-heads": 2, "transformer-dim-ffn": 64, "after": "2u", "cpu-threads": 1})


def test_wrong_types(translator, tiny):
    with pytest.raises(TypeError, match="source"):
        translator.translate_batch("the cat")
    with pytest.raises(TypeError, match="source"):
        translator.translate_batch([1, 2])
    with pytest.raises(TypeError, match="beam_size"):
        translator.translate_batch(["the cat"], beam_size="4")
    with pytest.raises(TypeError, match="return_scores"):
        translator.translate_batch(["the cat"], return_scores=1)
    with pytest.raises(TypeError, match="model"):
        realmt.Translator(3, vocabs="vocab.spm")
    with pytest.raises(TypeError, match="vocabs"):
        realmt.Translator(os.path.join(tiny, "model.safetensors"))
    with pytest.raises(TypeError, match="config"):
        realmt.train(42)
    with pytest.raises(TypeError, match="progress"):
        realmt.train({}, progress=3)


def test_bad_options_carry_realmt_messages(translator, tiny, work, monkeypatch):
    with pytest.raises(realmt.Error, match="n-best: 5 hypotheses asked with beam-size 4"):
        translator.translate_batch(["the cat"], beam_size=4, n_best=5)
    with pytest.raises(realmt.Error, match="beam_mode 'wide' is not one of: shrink, full"):
        translator.translate_batch(["the cat"], beam_mode="wide")
    with pytest.raises(realmt.Error, match="compute_type must be float32 or int8"):
        realmt.Translator(os.path.join(tiny, "model.safetensors"), vocabs=os.path.join(tiny, "vocab.spm"),
                          compute_type="int4")
    with pytest.raises(realmt.Error, match="language"):
        translator.translate_batch(["the cat"], target_language="fra")
    with pytest.raises(ValueError, match="score_batch: 1 sources and 2 targets"):
        translator.score_batch(["a"], ["b", "c"])
    monkeypatch.chdir(work)
    with pytest.raises(realmt.UsageError, match="mini-batch-wrds.*mini-batch-words"):
        realmt.train({"train-sets": ["train.en", "train.fr"], "mini-batch-wrds": 10})
    with pytest.raises(realmt.UsageError):  # a UsageError is also a ValueError
        realmt.train({"train-sets": ["train.en", "train.fr"], "after": "many"})
    assert issubclass(realmt.UsageError, ValueError) and issubclass(realmt.Error, RuntimeError)
