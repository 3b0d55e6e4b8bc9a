"""realmt.convert: realmt-convert in-process."""
from realmt import _checks
from realmt import _realmt


def convert(source, output, *, from_format="hf", to="realmt", vocabs=None, max_positions=1024):
    """Converts a model as realmt-convert does and returns its summary line.

    from_format: "hf" (a Hugging Face MarianMTModel directory), "marian" (a Marian .npz; vocabs:
    its .yml vocabularies) or "realmt" (a realmt checkpoint; with to="ctranslate2", vocabs: its
    .spm). to: "realmt" (a checkpoint file) or "ctranslate2" (a model directory).
    """
    for name, value in (("from_format", from_format), ("to", to)):
        if not isinstance(value, str):
            raise TypeError(f"{name}: expected str, got {type(value).__name__}")
    vocab_list = [] if vocabs is None else _checks.paths(vocabs, "vocabs")
    return _realmt.convert(from_format, _checks.path(source, "source"), _checks.path(output, "output"), to,
                           vocab_list, _checks.integer(max_positions, "max_positions", 1))
