"""The engines and the bookkeeping of bench/search/run_field.sh (realmt, CTranslate2 and real
Marian decoding one Marian-trained model on real text).

  field_decode.py train --venv-bin DIR --dir OUT --train SRC TRG --vocab SPM --minutes M --threads T
      Marian (the venv's `pymarian` command, 1.12.42) trains the quickstart's shape into
      OUT/model.npz until it has used M x 60 x T seconds of CPU (M minutes of T cores; on an idle
      machine M minutes of wall time) or 3 x M minutes of wall time, then gets SIGTERM, on which
      Marian saves the model and stops (its --sigterm save-and-exit). OUT/train.json records the
      CPU seconds used; a run stopped by the wall cap is resumed by the next one.
  field_decode.py ct2 --model DIR --vocab SPM --input F --output F --beam B --threads T
      [--compute-type float32|int8] [--normalize N] [--max-length-factor X] [--vmap]
  field_decode.py marian --model M --vocab SPM --input F --output F --beam B --threads T
      [--gemm-type G] [--normalize N] [--max-length-factor X]
      Both print one JSON line: load and decoding seconds (decoding: the translate calls only).
  field_decode.py measure --out JSON -- CMD...
      Runs CMD (output in JSON.log) and writes its decoding seconds, wall seconds and peak RSS
      (the child's ru_maxrss: its VmHWM) to JSON.
  field_decode.py summary --runs-dir D --vocab SPM --ref F --bleu BIN --factor X
      The table of run_field.sh: medians over the runs of each engine and mode.
"""
import argparse
import json
import math
import os
import pathlib
import re
import signal
import statistics
import subprocess
import sys
import time

MINI_BATCH, MAXI_BATCH = 32, 10  # realmt-translate's and Marian's batching, used for CTranslate2 too

MARIAN_SHAPE = (
    "--type transformer --enc-depth 3 --dec-depth 3 --dim-emb 256 --transformer-heads 4 "
    "--transformer-dim-ffn 1024 --transformer-ffn-activation relu --tied-embeddings-all "
    "--transformer-dropout 0 --transformer-dropout-attention 0 --transformer-dropout-ffn 0")
MARIAN_OPTIMISER = (
    "--optimizer adam --optimizer-params 0.9 0.98 1e-9 --learn-rate 0.002 --lr-warmup 100 "
    "--lr-decay-inv-sqrt 100 --label-smoothing 0.1 --clip-norm 0 --cost-type ce-mean-words "
    "--mini-batch-words 800 --maxi-batch 100 --max-length 64")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def train(a):
    os.makedirs(a.dir, exist_ok=True)
    log = os.path.join(a.dir, "train.log")
    cmd = [os.path.join(a.venv_bin, "pymarian"), *MARIAN_SHAPE.split(), *MARIAN_OPTIMISER.split(),
           "--model", os.path.join(a.dir, "model.npz"), "--train-sets", *a.train, "--vocabs", a.vocab, a.vocab,
           "--after", "0", "--disp-freq", "50u", "--save-freq", "1000000u", "--valid-freq", "1000000u",
           "--seed", "1", "--cpu-threads", str(a.threads), "--workspace", "1024", "--sigterm", "save-and-exit",
           "--overwrite", "--no-restore-corpus", "--log", log, "--quiet"]
    # A run stopped by the wall cap leaves train.json with "complete": false; the next run resumes
    # (Marian reloads model.npz, its optimizer and progress) with the CPU seconds left.
    info_path = pathlib.Path(a.dir, "train.json")
    before = json.loads(info_path.read_text()) if info_path.exists() else {}
    spent, wall_spent = before.get("cpu_used_s", 0.0), before.get("wall_s", 0.0)
    total_budget = a.minutes * 60 * a.threads
    budget, wall_cap = total_budget - spent, a.minutes * 60 * 3
    t0 = time.monotonic()
    proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)
    stopped, used = False, 0.0
    while proc.poll() is None:
        time.sleep(1)
        try:
            used = cpu_seconds(proc.pid)
        except (OSError, IndexError):
            continue
        if used >= budget or time.monotonic() - t0 >= wall_cap:
            proc.send_signal(signal.SIGTERM)  # Marian saves the model, then exits with 143
            stopped = True
            break
    code = proc.wait()
    if stopped and code in (143, -signal.SIGTERM):
        code = 0
    wall = time.monotonic() - t0
    updates = re.findall(r"Up\. (\d+)", pathlib.Path(log).read_text(errors="replace")) if os.path.exists(log) else []
    if code != 0 or not os.path.exists(os.path.join(a.dir, "model.npz")):
        sys.exit(f"field_decode.py train: Marian failed (exit {code}); see {log}")
    used += spent
    info = {"trainer": "pymarian 1.12.42", "cpu_budget_s": total_budget, "cpu_used_s": round(used, 1),
            "wall_s": round(wall + wall_spent, 1), "complete": used >= total_budget * 0.99,
            "last_logged_update": int(updates[-1]) if updates else None, "command": " ".join(cmd)}
    info_path.write_text(json.dumps(info, indent=1) + "\n")
    print(json.dumps(info))


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.rstrip("\n") for line in f]


def write_lines(path, lines):
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(line + "\n" for line in lines)


def batches(lengths):
    """realmt-translate's batching: chunks of MAXI_BATCH x MINI_BATCH lines, each sorted by source
    length, cut into MINI_BATCH-line batches (lists of line numbers)."""
    chunk = MAXI_BATCH * MINI_BATCH
    for c in range(0, len(lengths), chunk):
        order = sorted(range(c, min(c + chunk, len(lengths))), key=lambda i: lengths[i])
        for b in range(0, len(order), MINI_BATCH):
            yield order[b:b + MINI_BATCH]


def run_ct2(a):
    import ctranslate2
    import sentencepiece

    t0 = time.perf_counter()
    sp = sentencepiece.SentencePieceProcessor(model_file=a.vocab)
    translator = ctranslate2.Translator(a.model, device="cpu", compute_type=a.compute_type, inter_threads=1,
                                        intra_threads=a.threads)
    load = time.perf_counter() - t0
    lines = read_lines(a.input)
    t1 = time.perf_counter()
    pieces = [sp.encode(line, out_type=str) for line in lines]
    out = [""] * len(lines)
    for batch in batches([len(p) for p in pieces]):
        # Marian's length limit: ceil(factor x the widest source of the batch, its eos counted)
        # steps, the last one any token (CTranslate2 stops there as Marian does). CTranslate2's
        # min_decoding_length defaults to 1 (no empty output); realmt and Marian allow eos first.
        limit = math.ceil(a.max_length_factor * (max(len(pieces[i]) for i in batch) + 1))
        res = translator.translate_batch([pieces[i] for i in batch], beam_size=a.beam, max_batch_size=MINI_BATCH,
                                         length_penalty=a.normalize if a.beam > 1 else 0, max_decoding_length=limit,
                                         min_decoding_length=0, disable_unk=True, use_vmap=a.vmap, return_scores=False)
        for i, r in zip(batch, res):
            out[i] = sp.decode(r.hypotheses[0])
    decode = time.perf_counter() - t1
    write_lines(a.output, out)
    print(json.dumps({"engine": "ctranslate2", "version": ctranslate2.__version__, "load_s": load, "decode_s": decode}))


def run_marian(a):
    import pymarian

    gemm = f" --gemm-type {a.gemm_type}" if a.gemm_type else ""
    t0 = time.perf_counter()
    translator = pymarian.Translator(
        f"-m {a.model} -v {a.vocab} {a.vocab} --beam-size {a.beam} --normalize {a.normalize} --word-penalty 0 "
        f"--mini-batch {MINI_BATCH} --maxi-batch {MAXI_BATCH} --maxi-batch-sort src --max-length-factor "
        f"{a.max_length_factor} --cpu-threads {a.threads}{gemm} --quiet --quiet-translation")
    load = time.perf_counter() - t0
    lines = read_lines(a.input)
    t1 = time.perf_counter()
    out = translator.translate(lines)
    decode = time.perf_counter() - t1
    write_lines(a.output, out)
    print(json.dumps({"engine": "marian", "version": pymarian.__version__, "load_s": load, "decode_s": decode}))


def measure(a):
    """Runs the command with its stdout and stderr in OUT.log; the decoding seconds come from its
    last JSON line (the Python engines) or realmt-translate's "Total time: Xs wall" line."""
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    log = a.out + ".log"
    t0 = time.perf_counter()
    with open(log, "w") as f:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT)
        _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    text = pathlib.Path(log).read_text(errors="replace")
    if code != 0:
        sys.exit(f"field_decode.py: {' '.join(cmd)} failed (exit {code}):\n{text[-3000:]}")
    found = re.findall(r"^\{.*\"decode_s\".*\}$", text, re.M)
    decode = json.loads(found[-1])["decode_s"] if found else None
    if decode is None:
        m = re.findall(r"Total time: ([0-9.]+)s wall", text)
        if not m:
            sys.exit(f"field_decode.py: no decoding time in the output of {' '.join(cmd)} ({log})")
        decode = float(m[-1])
    pathlib.Path(a.out).write_text(json.dumps({"decode_s": decode, "total_s": wall,
                                               "peak_rss_mb": usage.ru_maxrss / 1024.0}) + "\n")


def bleu(binary, ref, hyp):
    out = subprocess.run([binary, ref, "-i", hyp, "-m", "bleu", "-b"], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().strip("[]").split(",")[0])


def limit_flags(sp, out, limits):
    """Per line: whether the output reaches (within a piece: re-segmenting cut text may merge
    pieces) its sentence's length limit."""
    return [len(sp.encode(line)) >= limit - 1 for line, limit in zip(out, limits)]


def summary(a):
    import sentencepiece

    sp = sentencepiece.SentencePieceProcessor(model_file=a.vocab)
    runs = pathlib.Path(a.runs_dir)
    limits = [math.ceil(a.factor * (len(sp.encode(line)) + 1)) for line in read_lines(a.source)]
    rows = {}
    for f in sorted(runs.glob("*.json")):
        engine, mode, r = f.stem.rsplit(".", 2)
        rows.setdefault((engine, mode), []).append(json.loads(f.read_text()))
    print(f"# medians of {a.runs} run(s); decode: seconds of decoding (model load excluded), total: the process; "
          "tokens: SentencePiece pieces of the output text (no eos); =realmt: lines identical to realmt's in the "
          "mode, all / those where neither output reaches the length limit; at limit: outputs that reach it")
    print(f"{'engine':<12} {'mode':<12} {'decode s':>9} {'total s':>8} {'tokens':>7} {'tokens/s':>9} "
          f"{'peak MB':>8} {'BLEU':>5} {'=realmt':>8} {'=free':>7} {'at limit':>8}")
    modes = sorted({m for _, m in rows}, key=lambda m: (not m.startswith("beam"), m))
    for mode in modes:
        base = runs / f"realmt.{mode}.txt"
        ref_out = read_lines(base) if base.exists() else None
        ref_cut = limit_flags(sp, ref_out, limits) if ref_out else None
        for engine in ("realmt", "ctranslate2", "marian"):
            if (engine, mode) in rows:
                print(summary_row(a, sp, runs, engine, mode, rows[(engine, mode)], ref_out, ref_cut, limits))


def summary_row(a, sp, runs, engine, mode, rows, ref_out, ref_cut, limits):
    med = lambda k: statistics.median(x[k] for x in rows)
    out = read_lines(runs / f"{engine}.{mode}.txt")
    tokens = sum(len(sp.encode(line)) for line in out)
    cut = limit_flags(sp, out, limits)
    same, free = f"{'-':>8}", f"{'-':>7}"
    if ref_out and len(ref_out) == len(out):
        same = f"{100 * sum(x == y for x, y in zip(out, ref_out)) / len(out):7.1f}%"
        pairs = [(x, y) for x, y, c, d in zip(out, ref_out, cut, ref_cut) if not c and not d]
        if pairs:
            free = f"{100 * sum(x == y for x, y in pairs) / len(pairs):6.1f}%"
    score = bleu(a.bleu, a.ref, str(runs / f"{engine}.{mode}.txt"))
    return (f"{engine:<12} {mode:<12} {med('decode_s'):9.2f} {med('total_s'):8.2f} {tokens:7d} "
            f"{tokens / med('decode_s'):9.1f} {med('peak_rss_mb'):8.0f} {score:5.1f} {same} {free} {sum(cut):8d}")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    t = sub.add_parser("train")
    t.add_argument("--venv-bin", required=True)
    t.add_argument("--dir", required=True)
    t.add_argument("--train", nargs=2, required=True)
    t.add_argument("--vocab", required=True)
    t.add_argument("--minutes", type=float, default=10)
    t.add_argument("--threads", type=int, default=2)
    for name in ("ct2", "marian"):
        d = sub.add_parser(name)
        for opt in ("--model", "--vocab", "--input", "--output"):
            d.add_argument(opt, required=True)
        d.add_argument("--beam", type=int, default=4)
        d.add_argument("--threads", type=int, default=2)
        d.add_argument("--normalize", type=float, default=1.0)
        d.add_argument("--max-length-factor", type=float, default=3.0)
        if name == "ct2":
            d.add_argument("--compute-type", default="float32")
            d.add_argument("--vmap", action="store_true", help="use the model directory's vmap.txt")
        else:
            d.add_argument("--gemm-type", default="")
    m = sub.add_parser("measure")
    m.add_argument("--out", required=True)
    m.add_argument("cmd", nargs=argparse.REMAINDER)
    s = sub.add_parser("summary")
    for opt in ("--runs-dir", "--vocab", "--source", "--ref", "--bleu"):
        s.add_argument(opt, required=True)
    s.add_argument("--factor", type=float, default=3.0)
    s.add_argument("--runs", type=int, default=1)
    a = p.parse_args()
    {"train": train, "ct2": run_ct2, "marian": run_marian, "measure": measure, "summary": summary}[a.command](a)


if __name__ == "__main__":
    main()
