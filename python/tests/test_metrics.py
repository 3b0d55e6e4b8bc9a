"""realmt.metrics against sacreBLEU 2.6.0's Python API: the same scores (to the last bit), the
same score objects' fields, strings and signatures, on generated text and, when
../shared/data is there, on newstest2014."""
import os
import random

import pytest
import sacrebleu
from sacrebleu.metrics import BLEU as SBLEU, CHRF as SCHRF, TER as STER

import realmt
import realmt.metrics as rm


def generated(seed=3, n=300):
    rnd = random.Random(seed)
    words = "The cat , dog's house ; tree: Car! book red blue? big small sun moon 3.5 l'été « déjà » 東京 naïve".split()
    refs, hyps, refs2 = [], [], []
    for _ in range(n):
        ref = [rnd.choice(words) for _ in range(rnd.randint(1, 15))]
        hyp = [w.lower() if rnd.random() < 0.2 else w for w in ref if rnd.random() > 0.2]
        rnd.shuffle(hyp) if rnd.random() < 0.3 else None
        refs.append(" ".join(ref))
        hyps.append(" ".join(hyp + ([rnd.choice(words)] if rnd.random() < 0.3 else [])))
        refs2.append(" ".join(reversed(ref)))
    hyps[5] = ""  # an empty hypothesis
    return hyps, refs, refs2


def shared():
    data = os.path.join(os.environ.get("REALMT_SHARED_DATA", ""), "wmt14-enfr", "test", "newstest2014.fr")
    if not os.path.exists(data):
        return None
    with open(data, encoding="utf-8") as f:
        refs = f.read().splitlines()[:1500]  # half of it: sacreBLEU's side is the slow one
    rnd = random.Random(11)
    hyps = [" ".join(w for w in r.split() if rnd.random() > 0.15) for r in refs]
    return hyps, refs, [r.lower() for r in refs]


CORPORA = [pytest.param(generated, id="generated"), pytest.param(shared, id="newstest2014")]


def corpus(make):
    c = make()
    if c is None:
        pytest.skip("../shared/data/wmt14-enfr is not there")
    return c


def same(mine, theirs, fields):
    assert mine.score == theirs.score
    assert str(mine) == str(theirs)
    for f in fields:
        assert getattr(mine, f) == getattr(theirs, f), f


BLEU_OPTIONS = [dict(), dict(tokenize="intl"), dict(tokenize="char", lowercase=True), dict(tokenize="none"),
                dict(smooth_method="floor", smooth_value=0.2), dict(smooth_method="add-k"), dict(smooth_method="none"),
                dict(effective_order=True), dict(tokenize="zh"), dict(max_ngram_order=2), dict(trg_lang="zh")]


@pytest.mark.parametrize("make", CORPORA)
@pytest.mark.parametrize("options", BLEU_OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_bleu_class(make, options):
    hyps, refs, refs2 = corpus(make)
    for streams in ([refs], [refs, refs2]):
        mine, theirs = rm.BLEU(**options), SBLEU(**options)
        same(mine.corpus_score(hyps, streams), theirs.corpus_score(hyps, streams),
             ["counts", "totals", "precisions", "bp", "sys_len", "ref_len", "ratio", "prec_str"])
        assert str(mine.get_signature()) == str(theirs.get_signature())
        assert mine.get_signature().format(short=True) == theirs.get_signature().format(short=True)


@pytest.mark.parametrize("make", CORPORA)
@pytest.mark.parametrize("options", [dict(), dict(word_order=2), dict(char_order=4, beta=3, lowercase=True),
                                     dict(whitespace=True), dict(eps_smoothing=True, word_order=2)],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_chrf_class(make, options):
    hyps, refs, refs2 = corpus(make)
    mine, theirs = rm.CHRF(**options), SCHRF(**options)
    same(mine.corpus_score(hyps, [refs, refs2]), theirs.corpus_score(hyps, [refs, refs2]),
         ["char_order", "word_order", "beta"])
    assert str(mine.get_signature()) == str(theirs.get_signature())


@pytest.mark.parametrize("make", CORPORA)
@pytest.mark.parametrize("options", [dict(), dict(normalized=True), dict(no_punct=True, case_sensitive=True),
                                     dict(asian_support=True)],
                         ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_ter_class(make, options):
    hyps, refs, refs2 = corpus(make)
    if make is shared:
        hyps, refs, refs2 = hyps[:300], refs[:300], refs2[:300]  # TER's shift search is slow in Python
    mine, theirs = rm.TER(**options), STER(**options)
    same(mine.corpus_score(hyps, [refs, refs2]), theirs.corpus_score(hyps, [refs, refs2]), ["num_edits", "ref_length"])
    assert str(mine.get_signature()) == str(theirs.get_signature())


@pytest.mark.parametrize("make", CORPORA)
def test_functions(make):
    hyps, refs, refs2 = corpus(make)
    same(rm.corpus_bleu(hyps, [refs]), sacrebleu.corpus_bleu(hyps, [refs]), ["counts", "totals", "bp"])
    same(rm.corpus_bleu(hyps, [refs], lowercase=True, tokenize="intl", use_effective_order=True),
         sacrebleu.corpus_bleu(hyps, [refs], lowercase=True, tokenize="intl", use_effective_order=True), ["counts"])
    same(rm.corpus_chrf(hyps, [refs, refs2], word_order=2), sacrebleu.corpus_chrf(hyps, [refs, refs2], word_order=2), [])
    same(rm.corpus_chrf(hyps, [refs], remove_whitespace=False), sacrebleu.corpus_chrf(hyps, [refs], remove_whitespace=False), [])
    same(rm.corpus_ter(hyps[:300], [refs[:300]]), sacrebleu.corpus_ter(hyps[:300], [refs[:300]]), ["num_edits"])
    for h, r, r2 in list(zip(hyps, refs, refs2))[:100]:
        same(rm.sentence_bleu(h, [r, r2]), sacrebleu.sentence_bleu(h, [r, r2]), ["counts", "totals", "bp"])
        same(rm.sentence_chrf(h, [r]), sacrebleu.sentence_chrf(h, [r]), [])
        same(rm.sentence_ter(h, [r]), sacrebleu.sentence_ter(h, [r]), ["num_edits"])


def test_cached_references_and_formats():
    hyps, refs, refs2 = generated(seed=8, n=50)
    mine, theirs = rm.BLEU(references=[refs, refs2]), SBLEU(references=[refs, refs2])
    a, b = mine.corpus_score(hyps, None), theirs.corpus_score(hyps, None)
    same(a, b, ["counts"])
    sig = str(theirs.get_signature())
    for kw in (dict(width=3), dict(score_only=True), dict(signature=sig), dict(is_json=True, signature=sig)):
        assert a.format(**kw) == b.format(**kw)
    same(mine.sentence_score(hyps[0], [refs[0]]), theirs.sentence_score(hyps[0], [refs[0]]), ["counts"])


def test_errors_are_python_exceptions():
    with pytest.raises(ValueError, match="evaluate the metric first"):
        rm.BLEU().get_signature()
    with pytest.raises(TypeError, match="should be a string"):
        rm.BLEU().corpus_score(["a", 3], [["a", "b"]])
    with pytest.raises(TypeError):
        rm.corpus_bleu("a b", [["a b"]])
    with pytest.raises(ValueError, match="different lengths"):
        rm.CHRF().corpus_score(["a"], [["a"], ["a", "b"]])
    with pytest.raises(realmt.Error, match="unknown BLEU tokenizer 'no-such-tokenizer'"):
        rm.BLEU(tokenize="no-such-tokenizer")
    with pytest.raises(realmt.Error, match="ja-mecab tokenizer .* give tokenize="):
        rm.BLEU(trg_lang="ja")
    with pytest.raises(UnicodeEncodeError):
        rm.corpus_bleu(["a \ud800 b"], [["a b"]])
