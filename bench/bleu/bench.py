"""realmt-bleu vs sacreBLEU 2.6.0 speed on newstest2014-sized input (3003 segments).

Two ratios per metric, each the median of several runs measured in this same process:
  api: sacreBLEU's Python API timing only the scoring (metric construction + corpus_score,
       after imports and file reading) vs realmt-bleu's whole process (start, read, score, print);
  cli: `python -m sacrebleu` vs `realmt-bleu`, both whole processes, same arguments.
A third ratio, cpu, divides the API's CPU time (process_time of the same scoring) by
realmt-bleu's whole-process CPU time (user + sys of the child, all threads): on a loaded
machine wall times mostly measure the scheduler, CPU times much less so.
"""
import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'regression', 'bleu'))
import corpora  # noqa: E402
from sacrebleu.metrics import BLEU, CHRF, TER  # noqa: E402


def median_time(fn, runs):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def median_cpu(fn, runs):
    """Median CPU time of fn in this process (process_time)."""
    times = []
    for _ in range(runs):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def median_child_cpu(cmd, runs):
    """Median user + sys time of a child process running cmd."""
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(cmd, check=True, capture_output=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(times)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--bin', required=True)
    ap.add_argument('--data', required=True)
    ap.add_argument('--runs', type=int, default=5)
    a = ap.parse_args()
    real = os.path.join(a.data, 'test', 'newstest2014.fr')
    if os.path.exists(real):
        with open(real, encoding='utf-8', newline='\n') as f:
            lines = [x.rstrip('\n') for x in f]
        source = 'newstest2014.fr (3003 segments) vs perturbed copies'
    else:
        refs, _, _ = corpora.trap_corpus(3003, seed=1)
        lines = refs
        source = 'generated text (3003 segments; ../shared/data absent)'
    refs, _, systems = corpora.real_corpus(lines, seed=2014)
    hyps = systems[0]
    d = tempfile.mkdtemp()
    ref_path, hyp_path = os.path.join(d, 'ref'), os.path.join(d, 'hyp')
    for path, data in ((ref_path, refs), (hyp_path, hyps)):
        with open(path, 'w', encoding='utf-8', newline='') as f:
            f.write(''.join(x + '\n' for x in data))
    print(f'input: {source}; median of {a.runs} runs (TER: of {max(1, a.runs // 2)} for sacreBLEU)')
    print(f'{"metric":<8}{"sacreBLEU api":>15}{"sacreBLEU cli":>15}{"realmt-bleu":>13}{"api ratio":>11}{"cli ratio":>11}'
          f'{"api cpu":>10}{"ours cpu":>10}{"cpu ratio":>11}')
    for name, make, flag in (('BLEU', BLEU, 'bleu'), ('chrF2', CHRF, 'chrf'), ('chrF2++', lambda: CHRF(word_order=2), 'chrf'),
                             ('TER', TER, 'ter')):
        runs = a.runs if name != 'TER' else max(1, a.runs // 2)
        api = median_time(lambda: make().corpus_score(hyps, [refs]), runs)
        extra = ['-cw', '2'] if name == 'chrF2++' else []
        cmd = [ref_path, '-i', hyp_path, '-m', flag, '-b'] + extra
        cli = median_time(lambda: subprocess.run([sys.executable, '-m', 'sacrebleu'] + cmd, check=True,
                                                 capture_output=True), runs)
        ours = median_time(lambda: subprocess.run([a.bin] + cmd, check=True, capture_output=True), max(a.runs, 5))
        api_cpu = median_cpu(lambda: make().corpus_score(hyps, [refs]), runs)
        ours_cpu = median_child_cpu([a.bin] + cmd, max(a.runs, 5))
        s1 = subprocess.run([sys.executable, '-m', 'sacrebleu'] + cmd, capture_output=True).stdout
        s2 = subprocess.run([a.bin] + cmd, capture_output=True).stdout
        same = 'same score' if s1 == s2 else f'SCORES DIFFER {s1!r} {s2!r}'
        print(f'{name:<8}{api:>14.3f}s{cli:>14.3f}s{ours:>12.4f}s{api / ours:>10.1f}x{cli / ours:>10.1f}x'
              f'{api_cpu:>9.3f}s{ours_cpu:>9.4f}s{api_cpu / max(ours_cpu, 1e-6):>10.1f}x  {same}')


if __name__ == '__main__':
    main()
