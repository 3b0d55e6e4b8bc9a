"""realmt.Translator: realmt-translate's beam search and realmt-score's scoring in-process."""
from dataclasses import dataclass, field
from typing import List, Optional

from realmt import _checks
from realmt import _realmt


@dataclass
class Hypothesis:
    """One translation. text: decoded with the vocabulary (realmt-translate's line); tokens: its
    subword pieces (eos excluded). With return_scores: score (what the beam ranks by),
    log_prob (ensemble-weighted, eos included) and token_scores (one log-probability per token,
    eos last). With return_alignments: alignment[t][s], the first model's last-layer
    cross-attention (heads averaged) of target token t (eos last) over source token s (eos last)."""
    text: str
    tokens: List[str]
    score: Optional[float] = None
    log_prob: Optional[float] = None
    token_scores: Optional[List[float]] = None
    alignment: Optional[List[List[float]]] = None


@dataclass
class TranslationResult:
    """One source's hypotheses, best first (n_best of them). A source that got none has error
    set (over max_input_length, or no translation with a finite score: realmt-translate's empty
    line and message); text is then "" and tokens [], as realmt-translate's empty line."""
    hypotheses: List[Hypothesis] = field(default_factory=list)
    error: Optional[str] = None

    @property
    def text(self):
        return self.hypotheses[0].text if self.hypotheses else ""

    @property
    def tokens(self):
        return self.hypotheses[0].tokens if self.hypotheses else []

    @property
    def score(self):
        return self.hypotheses[0].score if self.hypotheses else None


@dataclass
class ScoreResult:
    """A scored pair: log_prob (ensemble-weighted, eos included), score (normalised as the beam
    search ranks) and token_scores (per target token, eos last)."""
    log_prob: float
    score: float
    token_scores: List[float]


_DEVICES = ("cpu",)
_COMPUTE_TYPES = ("float32", "int8", "default")


class Translator:
    """A realmt model (or an ensemble) with its vocabulary, loaded once.

    model: a checkpoint path (realmt-trained or converted), or a list of them (an ensemble).
    vocabs: the SentencePiece model (.spm), or [source, target] (a converted model's two).
    device: "cpu" or "cuda:N". compute_type: "float32" or "int8" (CPU: int8 weights and GEMMs).
    threads: CPU threads (0: all cores; the OpenMP setting is process-wide, set again at each
    call of this Translator).
    shortlist: a lexical shortlist (realmt-translate's --shortlist, CPU only): the file's path
    (realmt-data shortlist writes it), or [path, first, best, threshold] with Marian's defaults
    100, 100 and 0 for those left out; every translation then scores only the batch's candidates.

    Calls from several Python threads are safe: the GIL is released while decoding, and one lock
    per Translator runs the calls one after the other, each batched on its own exactly as
    realmt-translate batches a file (docs/python.md).
    """

    def __init__(self, model, vocabs=None, device="cpu", compute_type="float32", threads=0, shortlist=None):
        models = _checks.paths(model, "model")
        if vocabs is None:
            raise TypeError("vocabs: give the SentencePiece model (vocabs='vocab.spm'), or [source.spm, target.spm]")
        if not isinstance(device, str):
            raise TypeError(f"device: expected str ('cpu' or 'cuda:0'), got {type(device).__name__}")
        if not isinstance(compute_type, str):
            raise TypeError(f"compute_type: expected str, got {type(compute_type).__name__}")
        self._impl = _realmt.Translator(models, _checks.paths(vocabs, "vocabs"), device, compute_type,
                                        _checks.integer(threads, "threads", 0), _shortlist(shortlist))

    def translate_batch(self, source, *, beam_size=4, n_best=1, normalize=0.0, word_penalty=0.0,
                        max_length_factor=3.0, repeat_guard=4, beam_mode="shrink", allow_unk=False,
                        return_scores=False, return_alignments=False, max_batch_size=32, max_batch_words=0,
                        maxi_batch=10, max_input_length=1000, crop_input=False, target_language=None,
                        weights=None):
        """Translates a list of sentences (str) or of token lists (lists of SentencePiece pieces).

        Returns one TranslationResult per source, in order. The options are realmt-translate's
        (beam-size, normalize, word-penalty, max-length-factor, repeat-guard, beam-mode,
        allow-unk, mini-batch, mini-batch-words, maxi-batch, max-length, max-length-crop); with
        the same options, the texts and scores are realmt-translate's. A source over
        max_input_length subwords (eos counted) gets no translation (its result's error says
        why), unless crop_input.
        """
        items, is_text = _checks.sources(source, "source")
        o = _realmt.TranslateOptions()
        o.beam_size = _checks.integer(beam_size, "beam_size", 1)
        _checks.integer(n_best, "n_best", 1)
        o.normalize = _checks.number(normalize, "normalize")
        o.word_penalty = _checks.number(word_penalty, "word_penalty")
        o.max_length_factor = _checks.number(max_length_factor, "max_length_factor")
        o.repeat_guard = _checks.integer(repeat_guard, "repeat_guard", 0)
        if not isinstance(beam_mode, str):
            raise TypeError(f"beam_mode: expected str ('shrink' or 'full'), got {type(beam_mode).__name__}")
        o.beam_mode = beam_mode
        o.allow_unk = _checks.flag(allow_unk, "allow_unk")
        o.alignment = "soft" if _checks.flag(return_alignments, "return_alignments") else "none"
        o.mini_batch = _checks.integer(max_batch_size, "max_batch_size", 1)
        o.mini_batch_words = _checks.integer(max_batch_words, "max_batch_words", 0)
        o.maxi_batch = _checks.integer(maxi_batch, "maxi_batch", 1)
        o.max_length = _checks.integer(max_input_length, "max_input_length", 2)
        o.max_length_crop = _checks.flag(crop_input, "crop_input")
        if target_language is not None:
            if not isinstance(target_language, str):
                raise TypeError(f"target_language: expected str, got {type(target_language).__name__}")
            if not is_text:
                raise ValueError("target_language: only with text sources (put the tag in the token list)")
            o.target_language = target_language
        if weights is not None:
            o.weights = [_checks.number(w, f"weights[{i}]") for i, w in enumerate(weights)]
        run = self._impl.translate_text if is_text else self._impl.translate_tokens
        raw = run(items, o, n_best)
        return [_result(i, r, _checks.flag(return_scores, "return_scores"), return_alignments)
                for i, r in enumerate(raw)]

    def score_batch(self, source, target, *, normalize=0.0, word_penalty=0.0, max_batch_size=32, weights=None):
        """Teacher-forced scores of (source[i], target[i]) pairs, as realmt-score computes them;
        sentences (str) or token lists on both sides. Returns one ScoreResult a pair."""
        src, src_text = _checks.sources(source, "source")
        tgt, tgt_text = _checks.sources(target, "target")
        if len(src) != len(tgt):
            raise ValueError(f"score_batch: {len(src)} sources and {len(tgt)} targets (one target a source)")
        if src and src_text != tgt_text:
            raise TypeError("score_batch: give source and target both as str or both as token lists")
        o = _realmt.ScoreOptions()
        o.normalize = _checks.number(normalize, "normalize")
        o.word_penalty = _checks.number(word_penalty, "word_penalty")
        o.mini_batch = _checks.integer(max_batch_size, "max_batch_size", 1)
        if weights is not None:
            o.weights = [_checks.number(w, f"weights[{i}]") for i, w in enumerate(weights)]
        run = self._impl.score_text if src_text else self._impl.score_tokens
        return [ScoreResult(lp, s, list(t)) for lp, s, t in run(src, tgt, o)]

    def tokenize(self, text):
        """The source-side SentencePiece pieces of text (what translate_batch's token lists hold)."""
        if not isinstance(text, str):
            raise TypeError(f"text: expected str, got {type(text).__name__}")
        _checks.utf8(text, "text")
        return self._impl.pieces(text)


def _shortlist(value):
    """Marian's --shortlist list: [path] or [path, first, best, threshold], as strings."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or hasattr(value, "__fspath__"):
        value = [value]
    if not isinstance(value, (list, tuple)) or not 1 <= len(value) <= 4:
        raise TypeError("shortlist: give a path, or [path, first, best, threshold]")
    out = _checks.paths(value[0], "shortlist")
    if len(out) != 1:
        raise TypeError("shortlist: one file")
    names = ("first", "best")
    for i, v in enumerate(value[1:3]):
        out.append(str(_checks.integer(v, f"shortlist {names[i]}", 0)))
    if len(value) == 4:
        out.append(repr(float(_checks.number(value[3], "shortlist threshold"))))
    return out


def _result(index, raw, scores, alignments):
    error, skipped, hyps = raw
    out = TranslationResult(error=error or None)
    for text, tokens, score, log_prob, token_scores, alignment in hyps:
        h = Hypothesis(text, list(tokens))
        if scores:
            h.score, h.log_prob, h.token_scores = score, log_prob, list(token_scores)
        if alignments:
            h.alignment = [list(row) for row in alignment]
        out.hypotheses.append(h)
    return out
