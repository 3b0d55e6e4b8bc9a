"""realmt.train: the same files as realmt-train with the same options and seed, the progress
callback, and the stops (callback, request_stop, Ctrl-C, an exception) with a saved checkpoint."""
import os
import shutil
import signal
import threading

import pytest

import realmt
from conftest import run

OPTIONS = {"train-sets": ["train.en", "train.fr"], "vocabs": ["vocab.spm", "vocab.spm"], "model": "run.safetensors",
           "enc-depth": 1, "dec-depth": 1, "dim-emb": 32, "transformer-heads": 2, "transformer-dim-ffn": 64,
           "transformer-dropout": 0.1, "admin-init": "closed-form", "mini-batch-words": 400, "learn-rate": 0.01,
           "lr-warmup": "5u", "after": "12u", "save-freq": "6u", "disp-freq": "4u", "seed": 17, "cpu-threads": 1,
           "quiet-progress": True, "valid-sets": ["dev.en", "dev.fr"], "valid-freq": "6u",
           "valid-metrics": ["cross-entropy", "bleu"], "keep-best": True}
FILES = ["run.safetensors", "run.state.safetensors", "run.safetensors.decoder.yml",
         "run.safetensors.best-bleu.safetensors", "run.safetensors.best-cross-entropy.safetensors"]


def cli_args(options):
    return realmt._train.command_line(options)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def test_same_checkpoint_bytes_as_realmt_train(bin_dir, work, tmp_path_factory, monkeypatch):
    cli_dir = tmp_path_factory.mktemp("cli")
    for name in ("train.en", "train.fr", "dev.en", "dev.fr", "vocab.spm"):
        shutil.copy(work / name, cli_dir / name)
    run(bin_dir, "realmt-train", *cli_args(OPTIONS), cwd=cli_dir)
    monkeypatch.chdir(work)
    seen = []
    result = realmt.train(OPTIONS, progress=lambda info: seen.append(info))
    assert result["updates"] == 12 and result["stop_reason"] == "after"
    for name in FILES:
        assert read(work / name) == read(cli_dir / name), name
    assert [i["update"] for i in seen] == list(range(1, 13))
    assert [i["loss"] for i in seen] == result["losses"]
    assert all(i["tokens"] > 0 and i["tokens_per_second"] > 0 and i["epoch"] == 1 for i in seen)


def test_yaml_files_and_keywords(work, monkeypatch):
    monkeypatch.chdir(work)
    with open("base.yml", "w") as f:
        f.write("".join(f"{k}: {v if not isinstance(v, list) else '[' + ', '.join(v) + ']'}\n"
                        for k, v in OPTIONS.items() if k not in ("after", "quiet-progress", "valid-sets",
                                                                 "valid-metrics", "keep-best", "valid-freq")))
        f.write("after: 100u\n")
    result = realmt.train("base.yml", after="3u", save_freq="0")  # keywords win over the file
    assert result["updates"] == 3
    assert os.path.exists("run.safetensors")


@pytest.mark.parametrize("how", ["false", "request_stop", "ctrl-c", "exception"])
def test_stop_saves_the_checkpoint(work, monkeypatch, how):
    monkeypatch.chdir(work)
    options = dict(OPTIONS, after="1000u", save_freq="0")

    def progress(info):
        if info["update"] < 4:
            return None
        if how == "false":
            return False
        if how == "request_stop":
            threading.Thread(target=realmt.request_stop).start()
        if how == "ctrl-c" and info["update"] == 4:
            os.kill(os.getpid(), signal.SIGINT)  # Python's handler raises at the next update
        if how == "exception":
            raise KeyError("stop here")
        return None

    if how == "exception":
        with pytest.raises(KeyError, match="stop here"):
            realmt.train(options, progress=progress)
    else:
        result = realmt.train(options, progress=progress)
        assert result["stop_reason"] == "signal"
        assert 4 <= result["updates"] <= 6
        assert result["interrupted"] == (how == "ctrl-c")
    # Saved at the stop: training again resumes from there instead of starting over.
    resumed = realmt.train(dict(options, after="8u"))
    assert resumed["updates"] == 8 and len(resumed["losses"]) < 8
    assert os.path.exists("run.state.safetensors")
