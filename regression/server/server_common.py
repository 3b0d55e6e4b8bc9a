"""Helpers of the realmt-server regressions: a tiny trained model, the server process, raw
HTTP answers. Everything runs in the current directory (a temporary one) on 127.0.0.1 only."""
import atexit
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

SRC = "cat dog house tree car book red blue big small sun moon".split()
TGT = "chat chien maison arbre voiture livre rouge bleu grand petit soleil lune".split()
WORDS = dict(zip(SRC, TGT))


def fail(msg):
    print("FAIL:", msg, file=sys.stderr)
    sys.exit(1)


def run(args, **kw):
    r = subprocess.run(args, capture_output=True, text=True, timeout=240, **kw)
    if r.returncode != 0:
        fail(f"{' '.join(args)}: {r.stderr[-2000:]}")
    return r.stdout


def sentences(rnd, n, lo=2, hi=6):
    return [" ".join(rnd.choice(SRC) for _ in range(rnd.randint(lo, hi))) for _ in range(n)]


def train_tiny_model(bin_dir):
    """Trains the translate regressions' tiny model (regression/tiny_model.sh, task reorder: SRC
    words to TGT words reversed, 1+1 layers) for 20 updates; returns the model options for
    realmt-translate and realmt-server."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tiny_model.sh")
    train = 'source "$0" && make_tiny_model "$1" --task reorder --schedule -'
    r = subprocess.run(["bash", "-c", train, script, bin_dir], input="after: 20u\ndisp-freq: 10u\ncpu-threads: 1\n",
                       capture_output=True, text=True, timeout=240)
    if r.returncode != 0:
        fail(f"the tiny model (tiny_model.sh): {r.stderr[-2000:]}")
    return ["-m", "model.safetensors", "-v", "vocab.spm", "--cpu-threads", "1"]


SERVERS = []


@atexit.register
def kill_servers():
    for p in SERVERS:  # only the servers this test started, and only if still running
        if p.poll() is None:
            p.kill()
            p.wait()


class Server:
    """realmt-server on a port the kernel picks (read from its "listening on" line)."""

    def __init__(self, bin_dir, model_args, *extra):
        self.log = open(f"server{id(self)}.log", "w+")
        self.p = subprocess.Popen([f"{bin_dir}/realmt-server", *model_args, "--port", "0", *extra],
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

    def raw(self, data, timeout=10):
        """Sends bytes as they are; (status, body text) of the answer, -1 when none came."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as s:
            s.sendall(data)
            return read_answer(s)

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


def read_answer(sock):
    """(status, body) of one HTTP answer with a Content-Length body; -1 when none came."""
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            more = sock.recv(65536)
            if not more:
                return -1, data.decode(errors="replace")
            data += more
        head, _, body = data.partition(b"\r\n\r\n")
        length = int(re.search(rb"(?i)\r\ncontent-length: *(\d+)", head).group(1))
        while len(body) < length:
            more = sock.recv(65536)
            if not more:
                break
            body += more
        return int(head[9:12]), body.decode(errors="replace")
    except (OSError, AttributeError) as e:
        return -1, repr(e)
