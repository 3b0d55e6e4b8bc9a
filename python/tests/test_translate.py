"""Translator.translate_batch and score_batch against realmt-translate and realmt-score on the
same model, file and options."""
import os
import threading

import pytest

import realmt
from conftest import lines, run


@pytest.fixture(scope="module")
def translator(tiny):
    return realmt.Translator(os.path.join(tiny, "model.safetensors"), vocabs=os.path.join(tiny, "vocab.spm"),
                             threads=1)


def cli(bin_dir, tiny, *options):
    return run(bin_dir, "realmt-translate", "-m", "model.safetensors", "-v", "vocab.spm", "-i", "test.en",
               "--cpu-threads", 1, "--quiet", *options, cwd=tiny).splitlines()


def test_text_equals_realmt_translate(bin_dir, tiny, translator):
    src = lines(os.path.join(tiny, "test.en"))
    for beam, mode in ((1, "shrink"), (4, "shrink"), (3, "full")):
        want = cli(bin_dir, tiny, "--beam-size", beam, "--beam-mode", mode, "--mini-batch", 4)
        got = translator.translate_batch(src, beam_size=beam, beam_mode=mode, max_batch_size=4)
        assert [r.text for r in got] == want


def test_nbest_scores_equal_realmt_translate(bin_dir, tiny, translator):
    src = lines(os.path.join(tiny, "test.en"))
    want = cli(bin_dir, tiny, "--beam-size", 4, "--n-best", "--normalize", 0.6, "--word-penalty", 0.1)
    got = translator.translate_batch(src, beam_size=4, n_best=4, normalize=0.6, word_penalty=0.1,
                                     return_scores=True)
    flat = [(i, h) for i, r in enumerate(got) for h in r.hypotheses]
    assert len(flat) == len(want)
    for (i, h), line in zip(flat, want):
        fields = line.split(" ||| ")
        assert int(fields[0]) == i and fields[1] == h.text
        assert float(fields[-1]) == h.score  # the CLI prints the shortest round-trip form
        assert float(fields[2].split()[1]) == h.log_prob


def test_alignments_equal_realmt_translate(bin_dir, tiny, translator):
    src = lines(os.path.join(tiny, "test.en"))
    want = cli(bin_dir, tiny, "--alignment", "soft")
    got = translator.translate_batch(src, return_alignments=True)
    for r, line in zip(got, want):
        text, soft = line.split(" ||| ")
        assert r.text == text
        rows = [[float(x) for x in group.split(",")] for group in soft.split()]
        assert len(rows) == len(r.hypotheses[0].alignment)
        for row, mine in zip(rows, r.hypotheses[0].alignment):
            assert row == pytest.approx(mine, abs=1e-6)


def test_int8_equals_realmt_translate_int8(bin_dir, tiny):
    t = realmt.Translator(os.path.join(tiny, "model.safetensors"), vocabs=os.path.join(tiny, "vocab.spm"),
                          compute_type="int8", threads=1)
    src = lines(os.path.join(tiny, "test.en"))
    assert [r.text for r in t.translate_batch(src)] == cli(bin_dir, tiny, "--quantize", "int8")


def test_shortlist_equals_realmt_translate_shortlist(bin_dir, work):
    run(bin_dir, "realmt-data", "shortlist", "--src", "train.en", "--tgt", "train.fr", "-v", "vocab.spm",
        "-o", "lex.s2t", "--top", 5, "--threads", 1, cwd=work)
    src = lines(os.path.join(work, "test.en"))
    for first, best in ((8, 3), (4, 0)):
        want = cli(bin_dir, work, "--shortlist", "lex.s2t", first, best)
        t = realmt.Translator(os.path.join(work, "model.safetensors"), vocabs=os.path.join(work, "vocab.spm"),
                              threads=1, shortlist=[os.path.join(work, "lex.s2t"), first, best])
        assert [r.text for r in t.translate_batch(src)] == want
    assert want != cli(bin_dir, work)  # best 0: the special ids and the source's own pieces only
    with pytest.raises(TypeError):
        realmt.Translator(os.path.join(work, "model.safetensors"), vocabs=os.path.join(work, "vocab.spm"),
                          shortlist=[os.path.join(work, "lex.s2t"), "8"])
    with pytest.raises(realmt.Error, match="lex.missing"):
        realmt.Translator(os.path.join(work, "model.safetensors"), vocabs=os.path.join(work, "vocab.spm"),
                          shortlist=os.path.join(work, "lex.missing"))


def test_token_lists_translate_as_their_text(translator, tiny):
    src = lines(os.path.join(tiny, "test.en"))
    by_text = translator.translate_batch(src, return_scores=True)
    by_tokens = translator.translate_batch([translator.tokenize(s) for s in src], return_scores=True)
    assert [r.tokens for r in by_tokens] == [r.tokens for r in by_text]
    assert [r.score for r in by_tokens] == [r.score for r in by_text]
    assert all(r.text == "".join(r.tokens).replace("\u2581", " ").strip() for r in by_text)


def test_long_source_gets_an_error_not_an_exception(translator):
    out = translator.translate_batch(["the cat sees a dog " * 3, "the cat"], max_input_length=5)
    assert out[0].error and "max-length 5" in out[0].error and out[0].text == ""
    assert out[1].error is None and out[1].text


def test_threads_share_one_translator(translator, tiny):
    src = lines(os.path.join(tiny, "test.en"))
    want = [r.text for r in translator.translate_batch(src)]
    results, errors = {}, []

    def worker(k):
        try:
            results[k] = [r.text for r in translator.translate_batch(src[k:] + src[:k])]
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for k in range(6):
        assert results[k] == want[k:] + want[:k]


def test_score_batch_equals_realmt_score(bin_dir, tiny, translator):
    src, tgt = lines(os.path.join(tiny, "test.en")), lines(os.path.join(tiny, "test.fr"))
    want = run(bin_dir, "realmt-score", "-m", "model.safetensors", "-v", "vocab.spm", "-t", "test.en", "test.fr",
               "--cpu-threads", 1, "--quiet", "--normalize", 1, cwd=tiny).splitlines()
    got = translator.score_batch(src, tgt, normalize=1.0)
    assert [float(x) for x in want] == [s.score for s in got]
    by_tokens = translator.score_batch([translator.tokenize(s) for s in src], [translator.tokenize(t) for t in tgt],
                                       normalize=1.0)
    assert [s.score for s in by_tokens] == [s.score for s in got]
