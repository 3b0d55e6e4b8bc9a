#!/usr/bin/env python3
"""realmt-server's Marian and MT-API endpoints with the clients their users have, on 127.0.0.1
only: the Python `websockets` and `requests` packages (clients_venv.sh installs them).

In the current folder: the toy model of regression/tiny_model.sh (compat_clients.sh makes it)
-> realmt-server (small limits) on a port the kernel picks:
  1. ws://.../translate: several messages on one connection (an empty line, no final newline,
     more lines than one request may hold, an empty message) equal /v1/translate's
     translations joined by '\\n' plus a final '\\n' (marian-server's reply); ping answered;
  2. POST /translate (MT-API) equals /v1/translate; bad bodies get 400 naming the field;
     GET /translate without Upgrade gets 426;
  3. 8 concurrent WebSocket connections, 3 messages each, all correct;
  4. abusive clients (a half-sent frame, a frame header claiming 1 TB, one that never reads its
     replies) do not hold up a well-behaved one; they get 1008 and 1009, and the server lives;
  5. SIGTERM: an idle connection gets close code 1001, the server exits 0.
Every wait is bounded. Usage: compat_clients.py BIN_DIR (run with the venv's python)
"""
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

import requests
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_common as common  # noqa: E402
from server_common import fail  # noqa: E402

BIN = sys.argv[1]
rnd = random.Random(33)
MODEL = ["-m", "model.safetensors", "-v", "vocab.spm", "--cpu-threads", "1"]
WORDS = "the a cat dog sees likes red small house tree".split()  # tiny_model.sh's English


def sentences(n):
    return [" ".join(rnd.choice(WORDS) for _ in range(rnd.randint(2, 6))) for _ in range(n)]


srv = common.Server(BIN, MODEL, "--language-pair", "en-fr", "--max-request-sentences", "4",
                    "--max-body-bytes", "4096", "--body-timeout-ms", "3000")
URL = f"ws://127.0.0.1:{srv.port}/translate"
HTTP = f"http://127.0.0.1:{srv.port}"


def reference(lines):
    """/v1/translate's translations of `lines`, 4 a request (the server's limit here)."""
    out = []
    for i in range(0, len(lines), 4):
        st, body = srv.translate({"text": lines[i:i + 4]})
        if st != 200:
            fail(f"/v1/translate: {st} {body}")
        out += body["translations"]
    return out


# Equal answers prove little if the model says nothing: it must translate word for word.
probe = sentences(8)
if sum(len(t.split()) == len(s.split()) for s, t in zip(probe, reference(probe))) < 6:
    fail(f"the toy model does not translate: {list(zip(probe, reference(probe)))}")
print(f"ok: the toy model translates: {probe[0]!r} -> {reference(probe[:1])[0]!r}")


def check_ws(ws, lines, message):
    ws.send(message)
    reply = ws.recv(timeout=120)
    want = "\n".join(reference(lines)) + "\n"  # marian-server: joined by '\n', then std::endl
    if reply != want:
        fail(f"WebSocket reply {reply!r} != /v1/translate's {want!r} for {message!r}")


# ---- 1. several messages on one connection -----------------------------------------------------
with connect(URL, open_timeout=30) as ws:
    one = sentences(1)
    check_ws(ws, one, one[0])  # no final newline
    lines = sentences(3)
    check_ws(ws, [lines[0], "", lines[1], lines[2]], f"{lines[0]}\n\n{lines[1]}\n{lines[2]}\n")
    many = sentences(10)  # 3 requests of at most 4 lines
    check_ws(ws, many, "".join(s + "\n" for s in many))
    if not ws.ping().wait(timeout=30):
        fail("no pong within 30 s")
    check_ws(ws, [], "")
print("ok: one WebSocket, 5 messages equal /v1/translate (empty line, no final newline, 10 lines)")

# ---- 2. MT-API ----------------------------------------------------------------------------------
texts = sentences(4)
r = requests.post(f"{HTTP}/translate", params={"api-version": "3.0", "from": "en", "to": "fr"},
                  json=[{"text": t} for t in texts], timeout=120)
want = [{"translations": [{"text": t, "to": "fr"}]} for t in reference(texts)]
if r.status_code != 200 or r.json() != want:
    fail(f"MT-API: {r.status_code} {r.text} != {want}")
for body, field in [([{"txt": "a"}], "[0].txt"), ({"text": "a"}, "array"),
                    ([{"text": "a"}, {"text": 3}], "[1].text")]:
    r = requests.post(f"{HTTP}/translate", json=body, timeout=30)
    if r.status_code != 400 or field not in r.json()["error"]["message"]:
        fail(f"MT-API {body}: {r.status_code} {r.text} (want 400 naming {field})")
r = requests.post(f"{HTTP}/translate", params={"to": "de"}, json=[], timeout=30)
if r.status_code != 400 or "to: 'de'" not in r.text:
    fail(f"MT-API to=de: {r.status_code} {r.text}")
r = requests.get(f"{HTTP}/translate", timeout=30)
if r.status_code != 426 or "WebSocket" not in r.text:
    fail(f"GET /translate without Upgrade: {r.status_code} {r.text}")
print("ok: MT-API equals /v1/translate; bad bodies 400 naming the field; plain GET 426")

# ---- 3. concurrent connections ------------------------------------------------------------------
REF = dict(zip(pool := sorted(set(sentences(40))), reference(pool)))
errors = []


def client(i):
    try:
        with connect(URL, open_timeout=60) as ws:
            for k in range(3):
                batch = [pool[(i * 5 + k * 3 + j) % len(pool)] for j in range(1 + (i + k) % 4)]
                ws.send("\n".join(batch))
                reply = ws.recv(timeout=240)
                if reply != "\n".join(REF[s] for s in batch) + "\n":
                    errors.append(f"client {i} message {k}: {reply!r}")
    except Exception as e:  # noqa: BLE001 (any failure of a client fails the test)
        errors.append(f"client {i}: {e!r}")


threads = [threading.Thread(target=client, args=(i,)) for i in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join(timeout=300)
if errors or any(t.is_alive() for t in threads):
    fail(f"concurrent WebSockets: {errors[:3]}")
print("ok: 8 concurrent WebSocket connections x 3 messages, all correct")


# ---- 4. abusive clients do not block others -----------------------------------------------------
def raw_socket():
    s = socket.create_connection(("127.0.0.1", srv.port), timeout=30)
    s.sendall(b"GET /translate HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
              b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
    head = b""
    while b"\r\n\r\n" not in head:
        more = s.recv(1)
        if not more:
            fail("handshake: connection closed")
        head += more
    if not head.startswith(b"HTTP/1.1 101"):
        fail(f"handshake: {head!r}")
    return s


def close_code(s, within):
    """The code of the close frame the server sends within `within` seconds (replies skipped)."""
    s.settimeout(within)
    data = b""
    try:
        while True:
            more = s.recv(65536)
            if not more:
                break
            data += more
    except OSError:
        pass
    while len(data) >= 2:  # walk the frames; short ones only here (replies under 126 bytes)
        n = data[1] & 0x7F
        if data[0] & 0x0F == 8 and n >= 2:
            return int.from_bytes(data[2:4], "big")
        data = data[2 + n:]
    return None


stalled = raw_socket()
stalled.sendall(b"\x81\x85abcd")  # the header of a 5-byte frame, never its payload
huge = raw_socket()
huge.sendall(b"\x81\xff\x00\x00\x01\x00\x00\x00\x00\x00mask")  # 1 TB
deaf = raw_socket()  # sends 16 messages, never reads a reply
deaf.sendall(b"".join(b"\x81\x83\x00\x00\x00\x00" + b"a b" for _ in range(16)))
with connect(URL, open_timeout=30) as ws:
    one = sentences(2)
    check_ws(ws, one, "\n".join(one))
if close_code(huge, 30) != 1009:
    fail("a frame claiming 1 TB was not closed with 1009")
if close_code(stalled, 30) != 1008:
    fail("a half-sent frame was not closed with 1008 after body-timeout-ms")
deaf.close()
with connect(URL, open_timeout=30) as ws:
    check_ws(ws, one, "\n".join(one))
print("ok: a stalled frame (1008), a 1 TB header (1009) and a deaf client do not block others")

# ---- 5. SIGTERM ---------------------------------------------------------------------------------
with connect(URL, open_timeout=30) as ws:
    srv.p.send_signal(signal.SIGTERM)
    try:
        ws.recv(timeout=60)
        fail("a message arrived instead of the close")
    except ConnectionClosed as e:
        if e.rcvd is None or e.rcvd.code != 1001:
            fail(f"SIGTERM: close {e.rcvd} (want 1001)")
    except TimeoutError:
        fail("SIGTERM: no close frame within 60 s")
try:
    rc = srv.p.wait(timeout=60)
except subprocess.TimeoutExpired:
    fail("server did not exit after SIGTERM")
if rc != 0:
    fail(f"server exit status {rc}")
print("ok: SIGTERM closed an idle WebSocket with 1001, exit 0")
