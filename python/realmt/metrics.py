"""BLEU, chrF and TER with sacreBLEU 2.6.0's Python API and numbers (realmt's C++ scorer).

    from realmt.metrics import BLEU, corpus_bleu
    bleu = BLEU()
    result = bleu.corpus_score(hyps, [refs])     # references: one list per reference stream
    result.score, str(result), str(bleu.get_signature())

Spelled as sacreBLEU's sacrebleu.metrics and sacrebleu.corpus_* are. Not covered: bootstrap
resampling (n_bootstrap; realmt-bleu --confidence has it), None inside reference streams
(variable reference counts), and the ja/ko MeCab tokenizers.
"""
from realmt import _checks
from realmt import _realmt

__all__ = ["BLEU", "CHRF", "TER", "BLEUScore", "CHRFScore", "TERScore", "Signature", "corpus_bleu",
           "corpus_chrf", "corpus_ter", "sentence_bleu", "sentence_chrf", "sentence_ter"]


class Signature:
    """A metric's reproducibility signature: str() gives sacreBLEU's long form."""

    def __init__(self, fields):
        self._fields = [tuple(f) for f in fields]
        self.info = {key: value for key, _, value in self._fields}

    def format(self, short=False):
        return "|".join(f"{short_key if short else key}:{value}" for key, short_key, value in self._fields)

    def __str__(self):
        return self.format()

    __repr__ = __str__


class Score:
    """A corpus or sentence score: .score, and sacreBLEU's text and JSON lines via format()."""

    def __init__(self, name, score, verbose=""):
        self.name = name
        self.score = score
        self._verbose = verbose

    def format(self, width=2, score_only=False, signature="", is_json=False):
        return _realmt.format_score(self.name, self.score, self._verbose, width, score_only, str(signature), is_json)

    def __str__(self):
        return self.format()

    __repr__ = __str__


class BLEUScore(Score):
    def __init__(self, detail):
        score, precisions, bp, sys_len, ref_len, verbose, counts, totals = detail
        super().__init__("BLEU", score, verbose)
        self.counts = [_number(c) for c in counts]
        self.totals = [_number(t) for t in totals]
        self.precisions = list(precisions)
        self.bp = bp
        self.sys_len = sys_len
        self.ref_len = ref_len
        self.ratio = sys_len / ref_len if ref_len > 0 else 0.0
        self.prec_str = "/".join(f"{p:.1f}" for p in self.precisions)


class CHRFScore(Score):
    def __init__(self, name, score, char_order, word_order, beta):
        super().__init__(name, score)
        self.char_order = char_order
        self.word_order = word_order
        self.beta = beta


class TERScore(Score):
    def __init__(self, score, num_edits, ref_length):
        super().__init__("TER", score)
        self.num_edits = num_edits
        self.ref_length = ref_length


class _Metric:
    """What BLEU, CHRF and TER share: references (given now or at each call), signatures."""

    def __init__(self, references):
        self._cached = None  # the C++ metric holding the constructor's references
        self._last = None    # the C++ metric of the last score (its signature)
        if references is not None:
            self._cached = self._with_references(references)
            self._last = self._cached

    def corpus_score(self, hypotheses, references=None, n_bootstrap=1):
        """The corpus score of hypotheses against references (one list per reference stream, each
        as long as hypotheses), or against the references given to the constructor."""
        if n_bootstrap != 1:
            raise NotImplementedError("realmt.metrics: n_bootstrap is not supported (realmt-bleu --confidence is)")
        hyps = _strings(hypotheses, self._prefix(), "hyps")
        metric = self._metric_for(references)
        self._last = metric
        return self._score(metric, metric.corpus_sums(hyps))

    def sentence_score(self, hypothesis, references):
        """The score of one hypothesis (str) against its references (a list of str)."""
        if not isinstance(hypothesis, str):
            raise TypeError(f"{self._prefix()}: The argument `hyp` should be a string.")
        _checks.utf8(hypothesis, f"{self._prefix()}: hyp")
        if isinstance(references, str) or not isinstance(references, (list, tuple)):
            raise TypeError(f"{self._prefix()}: The argument `refs` should be a sequence of strings.")
        metric = self._with_references([[r] for r in _strings(references, self._prefix(), "refs")])
        self._last = metric
        return self._score(metric, metric.corpus_sums([hypothesis]))

    def get_signature(self):
        if self._last is None:
            raise ValueError("Number of references unknown, please evaluate the metric first.")
        return Signature(self._last.signature())

    def _prefix(self):
        return type(self).__name__

    def _metric_for(self, references):
        if references is not None:
            return self._with_references(references)
        if self._cached is None:
            raise ValueError(f"{self._prefix()}: no references given, and none were given to the constructor")
        return self._cached

    def _with_references(self, references):
        if isinstance(references, str) or not isinstance(references, (list, tuple)) or not references:
            raise TypeError(f"{self._prefix()}: `refs` should be a sequence of sequence of strings.")
        streams = [_strings(stream, self._prefix(), "refs") for stream in references]
        if any(len(s) != len(streams[0]) for s in streams):
            raise ValueError(f"{self._prefix()}: the reference streams have different lengths")
        metric = self._make()
        metric.set_references(streams)
        return metric


class BLEU(_Metric):
    """sacreBLEU's BLEU: tokenize None picks 13a (zh for trg_lang 'zh')."""

    def __init__(self, lowercase=False, force=False, tokenize=None, smooth_method="exp", smooth_value=None,
                 max_ngram_order=4, effective_order=False, trg_lang="", references=None):
        self._args = ("" if tokenize is None else tokenize, trg_lang, lowercase, smooth_method, smooth_value,
                      effective_order, max_ngram_order)
        self.max_ngram_order = max_ngram_order
        _realmt.make_bleu(*self._args)  # bad options raise here, as sacreBLEU's constructor does
        super().__init__(references)

    def _make(self):
        return _realmt.make_bleu(*self._args)

    def _score(self, metric, sums):
        return BLEUScore(metric.bleu_detail(sums))


class CHRF(_Metric):
    """sacreBLEU's CHRF (word_order=2: chrF++)."""

    def __init__(self, char_order=6, word_order=0, beta=2, lowercase=False, whitespace=False, eps_smoothing=False,
                 references=None):
        self.char_order, self.word_order, self.beta = char_order, word_order, beta
        self._args = (char_order, word_order, beta, lowercase, whitespace, eps_smoothing)
        super().__init__(references)

    def _make(self):
        return _realmt.make_chrf(*self._args)

    def _score(self, metric, sums):
        score, _ = metric.score(sums)
        return CHRFScore(metric.name, score, self.char_order, self.word_order, self.beta)


class TER(_Metric):
    """sacreBLEU's TER (case-insensitive unless case_sensitive)."""

    def __init__(self, normalized=False, no_punct=False, asian_support=False, case_sensitive=False,
                 references=None):
        self._args = (normalized, no_punct, asian_support, case_sensitive)
        super().__init__(references)

    def _make(self):
        return _realmt.make_ter(*self._args)

    def _score(self, metric, sums):
        score, _ = metric.score(sums)
        return TERScore(score, int(sums[0]), sums[1])


def corpus_bleu(hypotheses, references, smooth_method="exp", smooth_value=None, force=False, lowercase=False,
                tokenize="13a", use_effective_order=False):
    return BLEU(lowercase=lowercase, force=force, tokenize=tokenize, smooth_method=smooth_method,
                smooth_value=smooth_value, effective_order=use_effective_order).corpus_score(hypotheses, references)


def sentence_bleu(hypothesis, references, smooth_method="exp", smooth_value=None, lowercase=False, tokenize="13a",
                  use_effective_order=True):
    return BLEU(lowercase=lowercase, tokenize=tokenize, smooth_method=smooth_method, smooth_value=smooth_value,
                effective_order=use_effective_order).sentence_score(hypothesis, references)


def corpus_chrf(hypotheses, references, char_order=6, word_order=0, beta=2, remove_whitespace=True,
                eps_smoothing=False):
    return CHRF(char_order=char_order, word_order=word_order, beta=beta, whitespace=not remove_whitespace,
                eps_smoothing=eps_smoothing).corpus_score(hypotheses, references)


def sentence_chrf(hypothesis, references, char_order=6, word_order=0, beta=2, remove_whitespace=True,
                  eps_smoothing=False):
    return CHRF(char_order=char_order, word_order=word_order, beta=beta, whitespace=not remove_whitespace,
                eps_smoothing=eps_smoothing).sentence_score(hypothesis, references)


def corpus_ter(hypotheses, references, normalized=False, no_punct=False, asian_support=False,
               case_sensitive=False):
    return TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
               case_sensitive=case_sensitive).corpus_score(hypotheses, references)


def sentence_ter(hypothesis, references, normalized=False, no_punct=False, asian_support=False,
                 case_sensitive=False):
    return TER(normalized=normalized, no_punct=no_punct, asian_support=asian_support,
               case_sensitive=case_sensitive).sentence_score(hypothesis, references)


def _number(x):
    """An integral statistic as int (sacreBLEU's counts are ints unless add-k added a float)."""
    return int(x) if x == int(x) else x


def _strings(value, prefix, what):
    if isinstance(value, str) or not isinstance(value, (list, tuple)):
        raise TypeError(f"{prefix}: `{what}` should be a sequence of strings.")
    for i, v in enumerate(value):
        if not isinstance(v, str):
            raise TypeError(f"{prefix}: Each element of `{what}` should be a string.")
        _checks.utf8(v, f"{prefix}: {what}[{i}]")
    return list(value)
