#!/usr/bin/env python3
"""End-to-end test of realmt-server with the real executables, on 127.0.0.1 only.

realmt-data vocab -> realmt-train (tiny model, 20 updates) -> realmt-translate (the reference
answers) -> realmt-server on a port the kernel picks (read from its "listening on" line):
  1. answers equal realmt-translate's (beam 4, beam 1, n-best scores);
  2. 64 concurrent clients all get their own correct answers; batches mixed requests;
  3. every malformed-request class gets its status, and the server keeps answering;
  4. overload with a small queue gives 429s (never a wrong answer) and the RSS stays bounded;
  5. SIGTERM: queued requests are answered, new ones refused, exit status 0.
Every wait is bounded; the whole run takes well under a minute on an idle 2-core machine.
"""
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import atexit

BIN = sys.argv[1]
TMP = tempfile.mkdtemp(prefix="realmt-server-")
os.chdir(TMP)


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, timeout=240, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(args)}: {r.stderr[-2000:]}")
    return r.stdout


# ---- a tiny model ----------------------------------------------------------------------------
rnd = random.Random(7)
SRC = "cat dog house tree car book red blue big small sun moon".split()
TGT = "chat chien maison arbre voiture livre rouge bleu grand petit soleil lune".split()
m = dict(zip(SRC, TGT))


def sentences(n, lo=2, hi=6):
    return [" ".join(rnd.choice(SRC) for _ in range(rnd.randint(lo, hi))) for _ in range(n)]


train = sentences(2000)
open("train.src", "w").write("".join(s + "\n" for s in train))
open("train.tgt", "w").write("".join(" ".join(m[w] for w in reversed(s.split())) + "\n" for s in train))
test = sorted(set(sentences(200, 1, 12)))[:96]
open("test.src", "w").write("".join(s + "\n" for s in test))

run([f"{BIN}/realmt-data", "vocab", "-i", "train.src", "train.tgt", "-o", "vocab.spm",
     "--vocab-size", "28", "--model-type", "word"])
open("train.yml", "w").write("""train-sets: [train.src, train.tgt]
vocabs: [vocab.spm]
model: model.safetensors
enc-depth: 1
dec-depth: 1
dim-emb: 32
transformer-heads: 2
transformer-dim-ffn: 64
transformer-dropout: 0.0
admin-init: closed-form
mini-batch-words: 400
learn-rate: 0.003
lr-warmup: 5u
after: 20u
disp-freq: 10u
quiet-progress: true
cpu-threads: 1
""")
run([f"{BIN}/realmt-train", "-c", "train.yml"])

MODEL = ["-m", "model.safetensors", "-v", "vocab.spm", "--cpu-threads", "1"]
tr = [f"{BIN}/realmt-translate", *MODEL, "--quiet", "-i", "test.src"]
ref4 = run(tr + ["-b", "4"]).splitlines()
ref1 = run(tr + ["-b", "1"]).splitlines()
nbest = [l.split(" ||| ") for l in run(tr + ["-b", "4", "--n-best"]).splitlines()]
assert len(ref4) == len(ref1) == len(test)
REF4 = dict(zip(test, ref4))


# ---- server helpers ---------------------------------------------------------------------------
SERVERS = []


@atexit.register
def kill_servers():
    for p in SERVERS:  # only the servers this test started, and only if still running
        if p.poll() is None:
            p.kill()
            p.wait()


class Server:
    def __init__(self, *extra):
        self.log = open(f"server{id(self)}.log", "w+")
        self.p = subprocess.Popen([f"{BIN}/realmt-server", *MODEL, "--port", "0", *extra],
                                  stdout=subprocess.DEVNULL, stderr=self.log, text=True)
        SERVERS.append(self.p)
        self.port = None
        for _ in range(600):  # 60 s at most (model loading on a busy machine)
            self.log.seek(0)
            found = re.search(r"listening on 127\.0\.0\.1:(\d+)", self.log.read())
            if found:
                self.port = int(found.group(1))
                break
            if self.p.poll() is not None:
                break
            time.sleep(0.1)
        if self.port is None:
            self.log.seek(0)
            fail(f"server did not start: {self.log.read()[-2000:]}")

    def request(self, path, body=None, timeout=60, headers=None):
        """(status, parsed JSON or text); status -1 when the connection failed."""
        data = body if body is None or isinstance(body, bytes) else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data,
                                     headers={"Content-Type": "application/json", **(headers or {})})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                status, text = r.status, r.read().decode()
        except urllib.error.HTTPError as e:
            status, text = e.code, e.read().decode()
        except (urllib.error.URLError, ConnectionError, OSError) as e:
            return -1, repr(e)
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def translate(self, body, **kw):
        return self.request("/v1/translate", body, **kw)

    def metric(self, name):
        _, text = self.request("/metrics")
        found = re.search(rf"^{re.escape(name)} (\S+)$", text, re.M)
        return float(found.group(1)) if found else None

    def rss_kb(self):
        for line in open(f"/proc/{self.p.pid}/status"):
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
        return 0

    def stop(self, timeout=60):
        self.p.send_signal(signal.SIGTERM)
        try:
            return self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            fail("server did not exit within 60 s of SIGTERM")


def parallel(n, fn):
    errors = []

    def body(i):
        try:
            fn(i)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(f"client {i}: {e!r}")

    threads = [threading.Thread(target=body, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
        if t.is_alive():
            fail("a client thread hung")
    if errors:
        fail("; ".join(errors[:5]))


t_start = time.time()
srv = Server("--max-wait-ms", "5")

# ---- 1. the same answers as realmt-translate ------------------------------------------------
st, out = srv.translate({"text": test})
if st != 200 or out["translations"] != ref4:
    fail(f"beam 4 differs from realmt-translate: {st} {str(out)[:300]}")
st, out = srv.translate({"text": test, "beam_size": 1})
if st != 200 or out["translations"] != ref1:
    fail(f"beam 1 differs from realmt-translate: {st} {str(out)[:300]}")
st, out = srv.translate({"text": test[:10], "beam_size": 4, "n_best": 4})
if st != 200:
    fail(f"n-best: {st} {out}")
for i in range(10):
    want = [(f[1], float(f[3])) for f in nbest if int(f[0]) == i]
    got = [(h["text"], h["score"]) for h in out["n_best"][i]]
    if [t for t, _ in got] != [t for t, _ in want] or any(abs(a[1] - b[1]) > 1e-3 for a, b in zip(got, want)):
        fail(f"n-best of sentence {i}: {got} vs realmt-translate {want}")
st, out = srv.translate({"text": []})
if st != 200 or out != {"translations": []}:
    fail(f"empty request: {st} {out}")
print(f"ok: answers equal realmt-translate's ({time.time() - t_start:.1f} s)")

# ---- 2. 64 concurrent clients -----------------------------------------------------------------
def client(i):
    r = random.Random(i)
    for _ in range(3):
        batch = r.sample(test, r.randint(1, 4))
        st, out = srv.translate({"text": batch})
        if st != 200 or out["translations"] != [REF4[s] for s in batch]:
            raise AssertionError(f"{st} {str(out)[:200]} for {batch}")


batches_before = srv.metric("realmt_batch_requests_count")
parallel(64, client)
mixed = srv.metric("realmt_batch_requests_sum") > srv.metric("realmt_batch_requests_count")
print(f"ok: 64 concurrent clients, 192 requests, all correct; batches mixed requests: {mixed} "
      f"({time.time() - t_start:.1f} s)")
if not mixed:
    fail("no batch held sentences of more than one request")

# ---- 3. every malformed class -----------------------------------------------------------------
cases = [
    (b'{"text": ["cat"', 400), (b'"cat"', 400), (b"{}", 400), (b'{"text": "cat"}', 400),
    (b'{"text": [1]}', 400), (b'{"text": ["cat"], "beam_size": "4"}', 400),
    (b'{"text": ["cat"], "beam_size": 99}', 400), (b'{"text": ["cat"], "n_best": 5, "beam_size": 2}', 400),
    (b'{"text": ["cat"], "beem": 4}', 400), (b'{"text": ["\xff"]}', 400),
    (json.dumps({"text": ["cat"] * 257}).encode(), 413),
    (json.dumps({"text": [" ".join(["cat"] * 300)]}).encode(), 413),
    (json.dumps({"text": ["cat " * 300000]}).encode(), 413),
]
for body, want in cases:
    st, out = srv.translate(body)
    if st != want or not isinstance(out, dict) or "error" not in out:
        fail(f"{body[:50]!r}: got {st} {str(out)[:200]}, want {want} with a reason")
    st, out = srv.translate({"text": [test[0]]})
    if st != 200 or out["translations"] != [ref4[0]]:
        fail(f"server stopped answering after {body[:50]!r}: {st}")
st, _ = srv.request("/v1/nothing")
if st != 404:
    fail(f"unknown route: {st}")
st, h = srv.request("/health")
if st != 200 or h != {"status": "ok"}:
    fail(f"health: {st} {h}")
if srv.metric('realmt_requests_total{code="400"}') != 10 or srv.metric('realmt_requests_total{code="413"}') != 3:
    fail("metrics do not count the 400s and 413s")
if srv.stop() != 0:
    fail("exit status after SIGTERM on an idle server")
print(f"ok: malformed requests -> 400/413 with reasons, serving goes on ({time.time() - t_start:.1f} s)")

# ---- 4. overload: 429, bounded memory ---------------------------------------------------------
srv = Server("--max-queue-sentences", "64", "--max-request-sentences", "32", "--max-wait-ms", "2")
rss0 = srv.rss_kb()
rss_peak = [rss0]
codes = {}
lock = threading.Lock()
long_sents = [" ".join(rnd.choice(SRC) for _ in range(40)) for _ in range(32)]


def overload(i):
    for _ in range(4):
        st, out = srv.translate({"text": long_sents, "beam_size": 8}, timeout=120)
        with lock:
            codes[st] = codes.get(st, 0) + 1
            rss_peak[0] = max(rss_peak[0], srv.rss_kb())
        if st == 200 and len(out["translations"]) != 32:
            raise AssertionError("short answer")
        if st not in (200, 429):
            raise AssertionError(f"status {st}: {out}")


parallel(64, overload)
growth_mb = (rss_peak[0] - rss0) / 1024
print(f"overload: status counts {codes}, RSS {rss0 / 1024:.0f} MB -> peak {rss_peak[0] / 1024:.0f} MB")
if codes.get(429, 0) == 0 or codes.get(200, 0) == 0:
    fail(f"overload should give both 429s and answers: {codes}")
if growth_mb > 100:
    fail(f"RSS grew by {growth_mb:.0f} MB under overload (bound 100 MB)")
st, out = srv.translate({"text": [test[0]]})
if st != 200 or out["translations"] != [ref4[0]]:
    fail(f"after overload: {st}")
if srv.stop() != 0:
    fail("exit status after overload")
print(f"ok: overload -> 429, memory bounded ({time.time() - t_start:.1f} s)")

# ---- 5. SIGTERM drains ------------------------------------------------------------------------
# Batches wait up to 60 s to fill, so the requests stay queued until the drain starts decoding.
srv = Server("--max-wait-ms", "60000", "--mini-batch", "1000", "--max-batch-tokens", "0")
results = {}


def queued(i):
    batch = test[i * 8:(i + 1) * 8]
    results[i] = (batch, srv.translate({"text": batch}, timeout=120))


threads = [threading.Thread(target=queued, args=(i,), daemon=True) for i in range(8)]
for t in threads:
    t.start()
for _ in range(600):
    if srv.metric("realmt_queue_sentences") == 64:
        break
    time.sleep(0.05)
else:
    fail(f"the 64 sentences never queued: {srv.metric('realmt_queue_sentences')}")
srv.p.send_signal(signal.SIGTERM)
# A request sent before the server saw the signal is still answered (correctly); once it has,
# new ones are refused: 503 while draining, no listener once stopped.
for _ in range(500):
    st, out = srv.translate({"text": [test[0]]}, timeout=30)
    if st != 200:
        break
    if out["translations"] != [ref4[0]]:
        fail(f"wrong answer during the drain: {out}")
    time.sleep(0.01)
if st not in (503, -1):
    fail(f"a new request during the drain got {st} {out}")
for t in threads:
    t.join(timeout=120)
for i, (batch, (st, out)) in results.items():
    if st != 200 or out["translations"] != [REF4[s] for s in batch]:
        fail(f"queued request {i} not answered correctly during drain: {st} {str(out)[:200]}")
try:
    rc = srv.p.wait(timeout=60)
except subprocess.TimeoutExpired:
    fail("server did not exit after draining")
if rc != 0 or len(results) != 8:
    fail(f"drain: exit {rc}, {len(results)} of 8 answered")
print(f"ok: SIGTERM answered the 8 queued requests, refused new ones, exit 0 ({time.time() - t_start:.1f} s)")
subprocess.run(["rm", "-rf", TMP])
