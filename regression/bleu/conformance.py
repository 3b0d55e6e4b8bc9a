"""realmt-bleu vs sacreBLEU 2.6.0: identical stdout and exit codes on many corpora and options.

sacreBLEU runs in-process (imported once, one fork per configuration, stdout captured at the
file-descriptor level) so that hundreds of configurations stay fast. Run through
run_conformance.sh, which creates the virtual environment.

realmt-bleu's JSON adds an "implementation" key after sacreBLEU's (docs/realmt-bleu.md); it is
checked and taken out before the comparison. Both programs read one cache directory ($SACREBLEU,
set here before sacreBLEU is imported): the SentencePiece models of the spm/flores tokenizers
(trained here on the test text: the real ones are downloads) and the -t test sets (written here
with sacreBLEU's own conversion from the plain-text newstest files).
"""
import argparse
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import corpora  # noqa: E402

CACHE = tempfile.mkdtemp(prefix='realmt-sacrebleu-cache-')
atexit.register(shutil.rmtree, CACHE, True)
os.environ['SACREBLEU'] = CACHE  # sacreBLEU reads it at import time

import sacrebleu  # noqa: E402
import sacrebleu.sacrebleu as sb_main  # noqa: E402
from sacrebleu.dataset import DATASETS  # noqa: E402

assert sacrebleu.__version__ == '2.6.0', sacrebleu.__version__

IMPLEMENTATION = re.compile(rb',\n "implementation": "realmt-bleu [^"\n]*"')


def run_sacrebleu(args, stdin_path, env):
    """sacreBLEU's CLI main() in a forked child; returns (exit code, stdout bytes)."""
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            os.environ.clear()
            os.environ.update(env)
            fd = os.open(stdin_path or os.devnull, os.O_RDONLY)
            os.dup2(fd, 0)
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            sys.stdin = open(0, 'r', closefd=False)
            sys.stdout = open(1, 'w', closefd=False)
            sys.argv = ['sacrebleu'] + args
            sb_main.main()
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        except BaseException:  # noqa: BLE001 - sacreBLEU's own crashes exit 1
            import traceback
            traceback.print_exc()
            code = 1
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    out.seek(0)
    err.seek(0)
    return os.waitstatus_to_exitcode(status), out.read(), err.read()


def run_realmt(binary, args, stdin_path, env):
    with open(stdin_path or os.devnull, 'rb') as fin:
        p = subprocess.run([binary] + args, stdin=fin, capture_output=True, env=env)
    return p.returncode, p.stdout, p.stderr


def write_lines(path, lines, newline='\n'):
    with open(path, 'w', encoding='utf-8', newline='') as f:
        f.write(''.join(line + newline for line in lines))
    return path


class Suite:
    def __init__(self, binary):
        self.binary = binary
        self.cases = 0
        self.failures = []
        self.sacre_time = 0.0
        self.env = {k: v for k, v in os.environ.items() if k not in ('SACREBLEU_FORMAT', 'SACREBLEU_SEED')}
        self.env['NO_COLOR'] = '1'
        self.implementation_keys = 0

    def check(self, label, args, stdin=None, expect_error=False, compare_stdout=True, env_extra=None):
        env = dict(self.env, **(env_extra or {}))
        t = time.time()
        c1, o1, e1 = run_sacrebleu(args, stdin, env)
        self.sacre_time += time.time() - t
        c2, o2, e2 = run_realmt(self.binary, args, stdin, env)
        o2, n = IMPLEMENTATION.subn(b'', o2)
        self.implementation_keys += n
        self.cases += 1
        ok = c1 == c2 and (not compare_stdout or o1 == o2)
        if expect_error and c1 == 0:
            ok = False
        if not ok:
            self.failures.append(label)
            print(f'FAIL {label}: sacrebleu {" ".join(args)}', flush=True)
            print(f'  exit codes: sacrebleu {c1}, realmt-bleu {c2}')
            if o1 != o2:
                a, b = o1.decode('utf-8', 'replace').splitlines(), o2.decode('utf-8', 'replace').splitlines()
                for i in range(max(len(a), len(b))):
                    la = a[i] if i < len(a) else '<none>'
                    lb = b[i] if i < len(b) else '<none>'
                    if la != lb:
                        print(f'  first difference, line {i + 1}:\n    sacrebleu: {la}\n    realmt:    {lb}')
                        break
            if c2 != c1:
                print('  realmt stderr:', e2.decode('utf-8', 'replace')[-500:])
                print('  sacrebleu stderr:', e1.decode('utf-8', 'replace')[-500:])


def corpus_cases(s, name, d, refs, ref2, systems, full):
    r1 = write_lines(os.path.join(d, f'{name}.ref1'), refs)
    r2 = write_lines(os.path.join(d, f'{name}.ref2'), ref2)
    sys_paths = [write_lines(os.path.join(d, f'{name}.sys{k + 1}'), h) for k, h in enumerate(systems)]
    h = sys_paths[0]
    two = [r1, r2]
    widths = ['1', '16']
    toks = ['13a', 'intl', 'zh', 'char', 'none', 'spm', 'flores101', 'flores200']
    smooth = [['-s', 'exp'], ['-s', 'floor'], ['-s', 'add-k'], ['-s', 'none'], ['-s', 'floor', '-sv', '0.25'],
              ['-s', 'add-k', '-sv', '2'], ['-s', 'add-k', '-sv', '0.5']]
    fmts = ['json', 'text']
    # BLEU: every tokenizer x case, every smoothing; both widths and formats.
    for tok in toks:
        for lc in ([], ['-lc']):
            for w in widths:
                f = fmts[(len(lc) + int(w == '16')) % 2] if not full else None
                for fmt in (fmts if full else [f]):
                    s.check(f'{name} bleu tok={tok} {lc} w={w} {fmt}', two + ['-i', h, '-tok', tok, '-w', w, '-f', fmt] + lc)
    for sm in smooth:
        for w in widths:
            for fmt in (fmts if full else [fmts[int(w == '1')]]):
                s.check(f'{name} bleu {sm} w={w} {fmt}', two + ['-i', h, '-w', w, '-f', fmt] + sm)
    if full:
        for tok in toks:
            for sm in smooth:
                for lc in ([], ['-lc']):
                    s.check(f'{name} bleu grid {tok} {sm} {lc}', two + ['-i', h, '-tok', tok, '-w', '16'] + sm + lc)
    # chrF / chrF++
    chrf_opts = [[], ['-cw', '2'], ['--chrf-beta', '3', '-cw', '1'], ['--chrf-whitespace'], ['--chrf-lowercase'],
                 ['--chrf-eps-smoothing', '-cw', '2'], ['-cc', '4', '-cw', '3'],
                 ['--chrf-whitespace', '--chrf-lowercase', '--chrf-eps-smoothing', '-cw', '2']]
    for k, opt in enumerate(chrf_opts):
        for w in widths:
            s.check(f'{name} chrf {opt} w={w}', two + ['-i', h, '-m', 'chrf', '-w', w, '-f', fmts[k % 2]] + opt)
    # TER: every option combination in full mode, the single options and two pairs otherwise.
    ter_flags = ['--ter-case-sensitive', '--ter-normalized', '--ter-no-punct', '--ter-asian-support']
    combos = [[f for b, f in enumerate(ter_flags) if m >> b & 1] for m in range(16)] if full else \
        [[], [ter_flags[0]], [ter_flags[1]], [ter_flags[2]], [ter_flags[1], ter_flags[3]],
         [ter_flags[2], ter_flags[3]], ter_flags]
    for k, opt in enumerate(combos):
        s.check(f'{name} ter {opt}', two + ['-i', h, '-m', 'ter', '-w', widths[k % 2], '-f', fmts[k % 2]] + opt)
    # Several metrics, output variants, single reference.
    allm = ['-m', 'bleu', 'chrf', 'ter']
    for extra in (['-f', 'text'], ['-f', 'json'], ['-b'], ['-b', '-f', 'text'], ['-f', 'text', '--short', '-w', '3'],
                  ['-w', '0'], ['-w', '16', '-f', 'text']):
        s.check(f'{name} all-metrics {extra}', two + ['-i', h] + allm + extra)
    s.check(f'{name} single ref', [r1, '-i', h, '-m', 'bleu', 'chrf', 'ter', '-w', '16'])
    s.check(f'{name} ter chrf bleu order', [r2, '-i', h, '-m', 'ter', 'chrf', 'bleu', '-f', 'text'])
    # Sentence level (text only), incl. forced effective order.
    s.check(f'{name} sl bleu', two + ['-i', h, '-sl', '-w', '16'])
    s.check(f'{name} sl bleu floor', two + ['-i', h, '-sl', '-s', 'floor', '-tok', 'intl'])
    s.check(f'{name} sl chrf', two + ['-i', h, '-sl', '-m', 'chrf', '-b', '-w', '16'])
    s.check(f'{name} sl ter', [r1, '-i', h, '-sl', '-m', 'ter', '--short', '-w', '4'])
    # Confidence intervals (single system).
    cin = '1000' if full else '300'
    s.check(f'{name} ci bleu', two + ['-i', h, '-ci', '-cin', cin, '-w', '16'])
    s.check(f'{name} ci all text', two + ['-i', h, '-ci', '-cin', cin] + allm + ['-f', 'text', '-w', '4'])
    s.check(f'{name} ci bleu -b', two + ['-i', h, '-ci', '-cin', cin, '-b', '-f', 'text'])
    # Multi-system without and with paired tests.
    s.check(f'{name} multi json', two + ['-i'] + sys_paths + allm)
    s.check(f'{name} multi text', two + ['-i'] + sys_paths + allm + ['-f', 'text', '-w', '2'])
    bsn = '1000' if full else '200'
    arn = '10000' if full else '500'
    s.check(f'{name} paired-bs bleu json', two + ['-i'] + sys_paths + ['--paired-bs', '-pbsn', bsn])
    s.check(f'{name} paired-bs all text', two + ['-i'] + sys_paths + allm + ['--paired-bs', '-pbsn', bsn, '-f', 'text', '-w', '2'])
    s.check(f'{name} paired-bs text w16', [r1, '-i'] + sys_paths[:2] + ['-m', 'chrf', 'bleu', '--paired-bs', '-pbsn', bsn, '-f', 'text', '-w', '16'])
    s.check(f'{name} paired-ar all text', two + ['-i'] + sys_paths + allm + ['--paired-ar', '-parn', arn, '-f', 'text'])
    s.check(f'{name} paired-ar json', two + ['-i'] + sys_paths + ['-m', 'bleu', 'chrf', 'ter', '--paired-ar', '-parn', arn])
    s.check(f'{name} paired baseline repeated', [r1, '-i', h, h, sys_paths[1], '--paired-ar', '-parn', '100', '-f', 'text'])


def stdin_cases(s, d, refs, systems):
    r1 = write_lines(os.path.join(d, 'stdin.ref'), refs)
    hyps = [[x.replace('\t', ' ') for x in sysl] for sysl in systems]
    one = write_lines(os.path.join(d, 'stdin.one'), hyps[1])
    crlf = write_lines(os.path.join(d, 'stdin.crlf'), hyps[1], newline='\r\n')
    cols = write_lines(os.path.join(d, 'stdin.cols'), ['\t'.join(t) for t in zip(hyps[1], hyps[2])])
    s.check('stdin one system', [r1, '-m', 'bleu', 'chrf'], stdin=one)
    s.check('stdin CRLF', [r1, '-f', 'text'], stdin=crlf)
    s.check('stdin two columns', [r1, '-m', 'bleu', 'ter', '-f', 'text'], stdin=cols)
    s.check('stdin two columns paired', [r1, '--paired-bs', '-pbsn', '100', '-f', 'text'], stdin=cols)
    nr = write_lines(os.path.join(d, 'nr2.ref'), [a.replace('\t', ' ') + '\t' + (b.replace('\t', ' ') or 'x')
                                                   for a, b in zip(refs, hyps[2])])
    s.check('num-refs 2', [nr, '-nr', '2', '-m', 'bleu', 'chrf', 'ter'], stdin=one)
    s.check('SACREBLEU_FORMAT=text', [r1], stdin=one, env_extra={'SACREBLEU_FORMAT': 'text'})
    s.check('SACREBLEU_SEED=7', [r1, '-ci', '-cin', '100', '-f', 'text'], stdin=one, env_extra={'SACREBLEU_SEED': '7'})


def error_cases(s, d, refs, systems):
    r1 = write_lines(os.path.join(d, 'err.ref'), refs)
    short = write_lines(os.path.join(d, 'err.short'), systems[0][:-1])
    empty = write_lines(os.path.join(d, 'err.empty'), [])
    bad = os.path.join(d, 'err.bad')
    with open(bad, 'wb') as f:
        f.write(b'ok\n\xff\xfe broken\n')
    s.check('error: line counts', [r1, '-i', short], expect_error=True, compare_stdout=False)
    s.check('error: empty -i file', [r1, '-i', empty], expect_error=True, compare_stdout=False)
    s.check('error: invalid utf-8', [bad, '-i', bad], expect_error=True, compare_stdout=False)
    s.check('error: -sl with two metrics', [r1, '-i', short, '-sl', '-m', 'bleu', 'chrf'], expect_error=True, compare_stdout=False)
    s.check('error: paired with one system', [r1, '-i', r1, '--paired-bs'], expect_error=True, compare_stdout=False)
    s.check('error: missing reference file', [os.path.join(d, 'nope'), '-i', r1], expect_error=True, compare_stdout=False)


def train_spm_models(d, lines):
    """Two SentencePiece models where sacreBLEU looks for its downloads (CACHE/models): one for
    spm/flores101, another (other size) for flores200, so that a mix-up shows."""
    import sentencepiece as spm
    text = os.path.join(d, 'spm-train.txt')
    write_lines(text, [x for x in lines if x.strip()])
    os.makedirs(os.path.join(CACHE, 'models'), exist_ok=True)
    for name, size in (('sacrebleu_tokenizer_spm.model', 400), ('flores200sacrebleuspm', 250)):
        prefix = os.path.join(d, name)
        spm.SentencePieceTrainer.train(input=text, model_prefix=prefix, vocab_size=size, hard_vocab_limit=False,
                                       character_coverage=1.0, minloglevel=2)
        shutil.copy(prefix + '.model', os.path.join(CACHE, 'models', name))


def fill_test_sets(data):
    """The wmt14/wmt14-full/wmt13 en-fr and fr-en entries of the cache, written with sacreBLEU's own
    _clean from the plain-text files (the SGM files are not in ../shared/data); the document fields,
    which sacreBLEU insists on, get placeholder lines."""
    found = False
    for name, plain in (('wmt14', 'test/newstest2014'), ('wmt14/full', 'test/newstest2014'), ('wmt13', 'dev/newstest2013')):
        ds = DATASETS[name]
        for pair in ('en-fr', 'fr-en'):
            src, trg = pair.split('-')
            files = {'src': os.path.join(data, f'{plain}.{src}'), 'ref': os.path.join(data, f'{plain}.{trg}')}
            if not all(os.path.exists(f) for f in files.values()):
                continue
            found = True
            os.makedirs(ds._outdir, exist_ok=True)
            n = 0
            for field, path in files.items():
                with open(path, encoding='utf-8') as fin, open(ds._get_txt_file_path(pair, field), 'w', encoding='utf-8') as fout:
                    for line in fin:
                        print(ds._clean(line), file=fout)
                        n += 1
            for k, field in enumerate(('docid', 'genre', 'origlang')):
                with open(ds._get_txt_file_path(pair, field), 'w', encoding='utf-8') as fout:
                    fout.write(f'{field}-placeholder\n' * (n // 2))
    return found


def test_set_cases(s, d, data):
    """-t/-l, --echo, --list and their errors, on the cached newstest2014 and newstest2013."""
    src = os.path.join(data, 'test', 'newstest2014.en')
    with open(os.path.join(data, 'test', 'newstest2014.fr'), encoding='utf-8') as f:
        fr = [x.rstrip('\n') for x in f]
    _, _, systems = corpora.real_corpus(fr, seed=14)
    hyp = write_lines(os.path.join(d, 'wmt14.hyp'), systems[0])
    hyp2 = write_lines(os.path.join(d, 'wmt14.hyp2'), systems[1])
    allm = ['-m', 'bleu', 'chrf', 'ter']
    s.check('-t wmt14 en-fr', ['-t', 'wmt14', '-l', 'en-fr', '-i', hyp] + allm)
    s.check('-t wmt14 en-fr text', ['-t', 'wmt14', '-l', 'en-fr', '-i', hyp, '-f', 'text', '-w', '3'] + allm)
    s.check('-t wmt14 en-fr stdin', ['-t', 'wmt14', '-l', 'en-fr', '-b'], stdin=hyp)
    s.check('-t wmt14/full en-fr', ['--test-set', 'wmt14/full', '--language-pair', 'en-fr', '-i', hyp])
    s.check('-t wmt14 fr-en copy', ['-t', 'wmt14', '-l', 'fr-en', '-i', src, '-m', 'bleu', 'chrf'])
    s.check('-t wmt14 paired', ['-t', 'wmt14', '-l', 'en-fr', '-i', hyp, hyp2, '--paired-bs', '-pbsn', '100'])
    s.check('-t wmt14 tok none', ['-t', 'wmt14', '-l', 'en-fr', '-i', hyp, '-tok', 'none', '-f', 'text'])
    if os.path.exists(os.path.join(data, 'dev', 'newstest2013.fr')):
        s.check('-t wmt13 en-fr intl', ['-t', 'wmt13', '-l', 'en-fr', '-i', os.path.join(data, 'dev', 'newstest2013.en'),
                                        '-tok', 'intl'])
    s.check('--echo src ref', ['-t', 'wmt14', '-l', 'en-fr', '--echo', 'src', 'ref'])
    s.check('--echo all', ['-t', 'wmt14', '-l', 'fr-en', '--echo', 'all'])
    s.check('--echo ref', ['-t', 'wmt13', '-l', 'fr-en', '--echo', 'ref'])
    s.check('-t --list -l', ['-t', 'wmt14', '--list', '-l', 'en-fr'])
    s.check('error: -t without -l', ['-t', 'wmt14', '-i', hyp], expect_error=True, compare_stdout=False)
    s.check('error: -t unknown pair', ['-t', 'wmt14', '-l', 'en-xx', '-i', hyp], expect_error=True, compare_stdout=False)
    s.check('error: -t and references', [src, '-t', 'wmt14', '-l', 'en-fr', '-i', hyp], expect_error=True,
            compare_stdout=False)
    s.check('error: -t with -nr 2', ['-t', 'wmt14', '-l', 'en-fr', '-nr', '2', '-i', hyp], expect_error=True,
            compare_stdout=False)
    s.check('error: --echo without -t', [src, '--echo', 'src'], expect_error=True, compare_stdout=False)
    s.check('error: --echo unknown field', ['-t', 'wmt14', '-l', 'en-fr', '--echo', 'nope'], expect_error=True,
            compare_stdout=False)
    short = write_lines(os.path.join(d, 'wmt14.short'), systems[0][:-1])
    s.check('error: -t length mismatch', ['-t', 'wmt14', '-l', 'en-fr', '-i', short], expect_error=True,
            compare_stdout=False)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--mode', choices=['quick', 'full'], default='quick')
    ap.add_argument('--data', required=True)
    a = ap.parse_args()
    full = a.mode == 'full'
    s = Suite(os.path.abspath(a.bin))
    t0 = time.time()
    with tempfile.TemporaryDirectory() as d:
        ref1, ref2, systems = corpora.trap_corpus(400 if full else 150, seed=20240)
        train_spm_models(d, ref1 + ref2 + [x for sysl in systems for x in sysl])
        corpus_cases(s, 'traps', d, ref1, ref2, systems, full)
        stdin_cases(s, d, ref1, systems)
        error_cases(s, d, ref1, systems)
        real = os.path.join(a.data, 'test', 'newstest2014.fr')
        if os.path.exists(real):
            with open(real, encoding='utf-8', newline='\n') as f:
                lines = [x.rstrip('\n') for x in f]
            if not full:
                lines = lines[:400]
            r1, r2, sysl = corpora.real_corpus(lines, seed=2014)
            corpus_cases(s, 'newstest2014', d, r1, r2, sysl, full)
            if fill_test_sets(a.data):
                test_set_cases(s, d, a.data)
        else:
            print(f'NOTE: {real} not found: the real-text part (WMT14 newstest2014) and -t are skipped')
    if s.implementation_keys == 0:
        s.failures.append('no "implementation" key in any JSON output of realmt-bleu')
        print('FAIL: realmt-bleu printed no "implementation" key in JSON')
    print(f'{s.cases} configurations compared, {len(s.failures)} differ '
          f'({time.time() - t0:.1f} s, of which sacreBLEU {s.sacre_time:.1f} s)')
    sys.exit(1 if s.failures else 0)


if __name__ == '__main__':
    main()
