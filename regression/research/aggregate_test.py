"""bench/research/aggregate.py on hand-made run folders (no training; instant): means and sample
standard deviations over seeds, the final training cost from the last display line, paired-bootstrap
deltas and p-values, and per-layer medians (median over heads, then mean over seeds), with a
missing run and a failed one. Usage: aggregate_test.py REPO"""
import io
import json
import os
import sys
import tempfile
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(sys.argv[1], "bench", "research"))
import aggregate  # noqa: E402

errors = []


def check(cond, msg):
    if not cond:
        errors.append(msg)


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


def scores(bleu, chrf):
    return json.dumps([{"name": "BLEU", "score": bleu}, {"name": "chrF2", "score": chrf}])


HEADER = "chain\tmeasure\tlayer\thead\tcount\tq1\tmedian\tq3\tmean\tmin\tmax\tcolour\n"


def tsv(rows):
    return HEADER + "".join(f"{c}\t{m}\t{l}\t{h}\t{n}\t0\t{med}\t0\t0\t0\t0\tblue\n" for c, m, l, h, n, med in rows)


with tempfile.TemporaryDirectory() as out:
    runs = os.path.join(out, "runs")
    # none: seeds 1 and 2 finished; seed 3 missing entirely
    for seed, (bleu, chrf, cost) in {1: (4.0, 10.0, 5.5), 2: (6.0, 14.0, 5.3)}.items():
        run = os.path.join(runs, f"none-s{seed}")
        write(os.path.join(run, "done"), "ok\n")
        write(os.path.join(run, "test.scores.json"), scores(bleu, chrf))
        write(os.path.join(run, "dev.scores.json"), scores(bleu - 1, chrf - 1))
        write(os.path.join(run, "train.log"),
              "[t] Ep. 1 : Up. 50 : Sen. 10 : Cost 9.00000000 : Time 1s\n"
              f"[t] Ep. 1 : Up. 100 : Sen. 20 : Cost {cost:.8f} : Time 1s\n[t] done\n")
        # encoder layer 1: heads 0.5, 1.5, 2.5 (median 1.5 in seed 1) / 1.0, 2.0, 4.0 (2.0 in seed 2);
        # a head with count 0 (no query tokens) is ignored; layer 2 and a jsd row "1-2"
        k = seed - 1
        write(os.path.join(run, "analysis", "attention.tsv"), tsv([
            ("encoder", "entropy", "1", 1, 10, [0.5, 1.0][k]), ("encoder", "entropy", "1", 2, 10, [1.5, 2.0][k]),
            ("encoder", "entropy", "1", 3, 10, [2.5, 4.0][k]), ("encoder", "entropy", "1", 4, 0, 99.0),
            ("encoder", "entropy", "2", 1, 10, 3.0), ("encoder", "jsd", "1-2", 1, 10, [0.2, 0.4][k])]))
    # sum: seed 1 failed (done says failed, no scores), seed 2 finished
    write(os.path.join(runs, "sum-s1", "done"), "failed\n")
    run = os.path.join(runs, "sum-s2")
    write(os.path.join(run, "done"), "ok\n")
    write(os.path.join(run, "test.scores.json"), scores(5.0, 12.0))
    write(os.path.join(runs, "paired-none-s2.json"), json.dumps([
        {"system": "/x/runs/none-s2/test.hyp", "BLEU": {"score": 6.0, "p_value": None}, "chrF2": {"score": 14.0, "p_value": None}},
        {"system": "/x/runs/sum-s2/test.hyp", "BLEU": {"score": 5.0, "p_value": 0.0123}, "chrF2": {"score": 12.5, "p_value": 0.5}}]))

    text = io.StringIO()
    with redirect_stdout(text):
        aggregate.main(out, ["1", "2", "3"], ["none", "sum"])
    got = text.getvalue()
    lines = got.splitlines()
    row = next((l for l in lines if l.startswith("| none |")), "")
    # BLEU 4, 6: mean 5, sample sd sqrt(2) = 1.41; chrF 10, 14: 12 ± 2.83; cost 5.5, 5.3: 5.40 ± 0.14
    check(row == "| none | 2/3 | 5.40 ± 0.14 (n=2) | 4.00 ± 1.41 (n=2) | 11.00 ± 2.83 (n=2) | "
          "5.00 ± 1.41 (n=2) | 12.00 ± 2.83 (n=2) |", f"none row: {row!r}")
    row = next((l for l in lines if l.startswith("| sum |")), "")
    check(row == "| sum | 1/3 | n/a | n/a | n/a | 5.00 ± 0.00 (n=1) | 12.00 ± 0.00 (n=1) |", f"sum row: {row!r}")
    check("| 2 | none | sum-s2 | -1.00 | 0.0123 | -1.50 | 0.5000 |" in lines, "paired row missing:\n" + got)
    # entropy: layer 1 = mean(1.5, 2.0) = 1.75, layer 2 = 3.00; jsd 1-2 = mean(0.2, 0.4) = 0.30
    check("| none | encoder | 1.75 3.00 |" in lines, "entropy per layer:\n" + got)
    check("| none | encoder | 0.30 |" in lines, "jsd per layer:\n" + got)
    check(aggregate.final_cost(os.path.join(runs, "sum-s1")) is None, "a run without train.log has no cost")

if errors:
    print("\n".join("FAIL: " + e for e in errors))
    sys.exit(1)
print("aggregate.py: all checks passed")
