"""realmt-bleu vs sacreBLEU 2.6.0 on the habits of sacreBLEU users (issue 33): -t with any test
set and language pair of sacreBLEU's cache, argparse's ways of writing options (--opt=value,
-oVALUE, unambiguous prefixes, combined flags), -f latex, and the exit codes of bad command
lines. Stdout and exit codes must be identical (conformance.py's Suite).

The cache is made up here, in sacreBLEU's layout (CACHE/<set>/<set>.<pair>.<field>, '/' in a set
name as '_', ':' in a field name as '-'), from lines of ../shared/data's newstest2014 when it is
there and from generated lines otherwise; sacreBLEU finds every file it needs and downloads
nothing. Run through run_cli_habits.sh, which creates the virtual environment.
"""
import argparse
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from conformance import CACHE, Suite, write_lines  # noqa: E402  (sets $SACREBLEU, imports sacreBLEU)
from sacrebleu.dataset import DATASETS  # noqa: E402

# Sets of each dataset kind sacreBLEU reads from the cache without its raw files: WMT SGM
# (src, ref, docid, genre, origlang), two references (ref:0, ref:1), wmt08 (src, ref only), TSV.
SETS = [('wmt14', 'en-de'), ('wmt14', 'de-en'), ('wmt17', 'en-de'), ('wmt17/tworefs', 'en-fi'),
        ('wmt08', 'en-fr'), ('mtnt2019', 'en-fr')]


def text_lines(data, n):
    path = os.path.join(data, 'test', 'newstest2014.fr')
    if os.path.exists(path):
        with open(path, encoding='utf-8') as f:
            return [line.strip() for _, line in zip(range(n), f)]
    rng = random.Random(33)
    words = 'the a cat dog sat ran on under mat house today it was good day for all , . "'.split()
    return [' '.join(rng.choice(words) for _ in range(rng.randint(3, 20))) for _ in range(n)]


def noisy(lines, seed):
    """A system output: each line with some words dropped or swapped."""
    rng = random.Random(seed)
    out = []
    for line in lines:
        w = [x for x in line.split() if rng.random() > 0.15]
        if len(w) > 3 and rng.random() < 0.5:
            i = rng.randrange(len(w) - 1)
            w[i], w[i + 1] = w[i + 1], w[i]
        out.append(' '.join(w))
    return out


def make_cache(lines):
    """Writes every field sacreBLEU expects for SETS; returns {(set, pair): reference lines}."""
    refs = {}
    for k, (name, pair) in enumerate(SETS):
        ds = DATASETS[name]
        assert ds._outdir.startswith(CACHE), ds._outdir
        os.makedirs(ds._outdir, exist_ok=True)
        part = lines[k * 7:k * 7 + 25]
        for field in ds.fieldnames(pair):
            if field == 'src':
                values = [f'source {i}: {x}' for i, x in enumerate(part)]
            elif field.startswith('ref'):
                values = part if field in ('ref', 'ref:0') else noisy(part, 99)
            else:
                values = [f'{field}-{i // 10}' for i in range(len(part))]
            write_lines(ds._get_txt_file_path(pair, field), values)
        refs[name, pair] = part
    return refs


def test_set_cases(s, d, refs):
    hyp = {}
    for (name, pair), part in refs.items():
        hyp[name, pair] = write_lines(os.path.join(d, f'{name.replace("/", "_")}.{pair}.hyp'), noisy(part, 7))
    h, h2 = hyp['wmt14', 'en-de'], write_lines(os.path.join(d, 'second.hyp'), noisy(refs['wmt14', 'en-de'], 8))
    allm = ['-m', 'bleu', 'chrf', 'ter']
    for (name, pair), path in hyp.items():
        s.check(f'-t {name} -l {pair}', ['-t', name, '-l', pair, '-i', path] + allm)
        s.check(f'-t {name} -l {pair} --echo all', ['-t', name, '-l', pair, '--echo', 'all'])
        s.check(f'-t {name} --list -l {pair}', ['-t', name, '--list', '-l', pair])
    s.check('-t wmt14 en-de text stdin', ['-t', 'wmt14', '-l', 'en-de', '-f', 'text', '-w', '3'], stdin=h)
    s.check('-t wmt14 en-de: zh-free tokenizer choice', ['-t', 'wmt14', '-l', 'en-de', '-i', h, '-tok', 'intl', '-b'])
    s.check('--echo ref src docid', ['-t', 'wmt14', '-l', 'en-de', '--echo', 'ref', 'src', 'docid'])
    s.check('--echo ref of a two-reference set', ['-t', 'wmt17/tworefs', '-l', 'en-fi', '--echo', 'ref'])
    both = write_lines(os.path.join(d, 'both.hyp'), noisy(refs['wmt14', 'en-de'] + refs['wmt17', 'en-de'], 5))
    s.check('-t wmt14,wmt17 concatenated', ['-t', 'wmt14,wmt17', '-l', 'en-de', '-i', both, '-f', 'text'])
    s.check('-t paired latex', ['-t', 'wmt14', '-l', 'en-de', '-i', h, h2, '-f', 'latex', '--paired-bs', '-pbsn', '100',
                                '-m', 'bleu', 'chrf'])
    s.check('error: set in no cache', ['-t', 'nosuchset', '-l', 'en-de', '-i', h], expect_error=True)
    s.check('error: pair not there', ['-t', 'wmt14', '-l', 'en-xx', '-i', h], expect_error=True)
    s.check('error: --echo unknown field', ['-t', 'wmt14', '-l', 'en-de', '--echo', 'nope'], expect_error=True)
    s.check('error: -t with -nr 2', ['-t', 'wmt14', '-l', 'en-de', '-nr', '2', '-i', h], expect_error=True)
    return h, h2


def argparse_cases(s, d, ref, h, h2):
    cases = {
        '= forms': ['--test-set=wmt14', '--language-pair=en-de', '--tokenize=intl', '-i=' + h, '--width=3',
                    '--format=text', '--metrics=chrf'],
        '= short forms': [ref, '-i', h, '-tok=char', '-w=2', '-f=text', '-s=floor', '-sv=0.2'],
        'attached values': ['-twmt14', '-len-de', '-i', h, '-w4', '-ftext'],
        'prefixes': ['--test', 'wmt14', '--lang', 'en-de', '--inp', h, '--tok', 'intl', '--metric', 'bleu', 'ter',
                     '--wid', '2', '--form', 'text', '--sh'],
        'prefixes of flags': [ref, '-i', h, '--sc', '--lo', '--chrf-wh', '-m', 'chrf', '--chrf-low'],
        'combined flags': [ref, '-i', h, '-qb'],
        'combined flags and a value': [ref, '-i', h, '-qbw3'],
        'refs after a flag': ['-b', ref, '-i', h],
        'negative smooth value': [ref, '-i', h, '-s', 'floor', '-sv', '-0.5', '-f', 'text'],
        'latex one system': [ref, '-i', h, '-f', 'latex', '-m', 'bleu', 'chrf'],
        'latex systems': [ref, '-i', h, h2, '-f', 'latex', '-m', 'bleu', 'chrf', 'ter', '-w', '2'],
        'latex paired-ar': [ref, '-i', h, h2, '--format', 'latex', '--paired-ar', '-parn', '200'],
    }
    for label, args in cases.items():
        s.check(label, args)
    s.check('SACREBLEU_FORMAT=latex', [ref, '-i', h, h2], env_extra={'SACREBLEU_FORMAT': 'LaTeX'})
    s.check('SACREBLEU_FORMAT=bogus keeps -f', [ref, '-i', h, '-f', 'text'], env_extra={'SACREBLEU_FORMAT': 'xml'})
    bad = {
        'unknown tokenizer': ['-tok', 'foo'], 'ambiguous --t': ['--t', 'wmt14'], 'ambiguous -to': ['-to', '13a'],
        'ambiguous --paired-b': ['--paired-b'], 'ambiguous --cit': ['--cit'], 'unknown option': ['-x'],
        'unknown --opt=value': ['--bogus=1'], 'value for a flag': ['--quiet=1'], 'bad combined flag': ['-bx'],
        'bad int': ['-w', 'x'], 'bad float': ['-sv', 'x'], 'missing value': ['-sv'], 'no metric': ['-m'],
        'bad metric': ['-m', 'bleu', 'meteor'], 'bad format': ['-f', 'xml'], 'second refs run': ['-b', ref],
        'paired exclusive': ['--paired-bs', '--paired-ar'], 'bad smooth': ['-s', 'exp2'],
        'realmt option prefix taken by sacreBLEU': ['--lo=1'],
    }
    for label, args in bad.items():
        s.check(f'usage error: {label}', [ref, '-i', h] + args, expect_error=True)
    nr = write_lines(os.path.join(d, 'nr.ref'), ['a\tb', 'c'])
    s.check('exit 17: -nr 2 with a line of one field', [nr, '-nr', '2'], stdin=nr, expect_error=True)
    s.check('exit 1: no references', ['-i', h], expect_error=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--data', required=True)
    a = ap.parse_args()
    s = Suite(os.path.abspath(a.bin))
    with tempfile.TemporaryDirectory() as d:
        refs = make_cache(text_lines(a.data, 60))
        h, h2 = test_set_cases(s, d, refs)
        ref = write_lines(os.path.join(d, 'plain.ref'), refs['wmt14', 'en-de'])
        argparse_cases(s, d, ref, h, h2)
    print(f'{s.cases} command lines compared, {len(s.failures)} differ')
    sys.exit(1 if s.failures else 0)


if __name__ == '__main__':
    main()
