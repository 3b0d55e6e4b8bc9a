"""realmt from Python: translate, score, train and compute BLEU/chrF/TER in-process.

    import realmt
    t = realmt.Translator("model.safetensors", vocabs="vocab.spm", threads=4)
    [r.text for r in t.translate_batch(["the cat sees a dog"], beam_size=4)]

The C++ library does the work (the module realmt._realmt); docs/python.md has the guide.
"""
from realmt import metrics
from realmt._realmt import Error, UsageError, __version__, cpu_isa, request_stop
from realmt._convert import convert
from realmt._train import train
from realmt._translator import Hypothesis, ScoreResult, TranslationResult, Translator

__all__ = ["Translator", "TranslationResult", "Hypothesis", "ScoreResult", "train", "request_stop", "convert",
           "metrics", "Error", "UsageError", "cpu_isa", "__version__"]
