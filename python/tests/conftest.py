"""Fixtures of the Python package's tests (run by run_tests.sh, which sets the environment)."""
import os
import shutil
import subprocess

import pytest


@pytest.fixture(scope="session")
def bin_dir():
    return os.environ["REALMT_BIN"]


@pytest.fixture(scope="session")
def tiny():
    """The folder of regression/tiny_model.sh: train/dev/test .en/.fr, vocab.spm, model.safetensors."""
    return os.environ["REALMT_TINY"]


@pytest.fixture
def work(tmp_path, tiny):
    """A fresh folder with the toy corpus and vocabulary (and the model) copied in."""
    for name in ("train.en", "train.fr", "dev.en", "dev.fr", "test.en", "test.fr", "vocab.spm", "model.safetensors"):
        shutil.copy(os.path.join(tiny, name), tmp_path / name)
    return tmp_path


def run(bin_dir, program, *args, cwd=None):
    """Runs a realmt program; returns its stdout (a failure shows stderr)."""
    p = subprocess.run([os.path.join(bin_dir, program), *map(str, args)], cwd=cwd, capture_output=True, text=True)
    assert p.returncode == 0, f"{program} {' '.join(map(str, args))} failed: {p.stderr[-3000:]}"
    return p.stdout


def lines(path):
    with open(path, encoding="utf-8") as f:
        return f.read().splitlines()
