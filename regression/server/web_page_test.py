"""realmt-server's web page in a real browser (issue 21, item 5): headless Chromium (Debian's
`chromium`, from tools/deps.txt) loads http://127.0.0.1:PORT/ from a realmt-server serving the toy
model of regression/tiny_model.sh, a sentence is typed key by key into the text box, the
Translate button is clicked with the mouse, and the page must show the translation the API gives
for that sentence, the time it took, and the server's metrics counting the request; then a
screenshot (PNG) is saved. The browser is driven with the DevTools protocol over a pipe
(--remote-debugging-pipe: JSON messages separated by NUL bytes), so nothing but Chromium is needed.
Skips (exit 77) when no Chromium is installed.

Usage: web_page_test.py BIN_DIR REPO SCREENSHOT.png
"""
import base64
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_common  # noqa: E402
from server_common import fail  # noqa: E402

SENTENCE = "the cat sees a dog"


class Browser:
    """Headless Chromium and one page, driven with the DevTools protocol over a pipe."""

    def __init__(self, binary, profile):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4.
        cmd = (f'exec "$0" --headless=new --no-sandbox --disable-gpu --no-first-run --no-default-browser-check '
               f'--disable-extensions --disable-background-networking --remote-debugging-pipe '
               f'--user-data-dir="$1" --window-size=1200,820 about:blank 3<&{to_chrome_r} 4>&{from_chrome_w}')
        self.p = subprocess.Popen(["bash", "-c", cmd, binary, profile], pass_fds=(to_chrome_r, from_chrome_w),
                                  stdout=subprocess.DEVNULL, stderr=open(os.path.join(profile, "..", "chromium.log"), "w"))
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buf = b""
        self.next_id = 0
        self.session = None
        self.events = []
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            if time.time() > deadline:
                fail("Chromium did not answer in time")
            chunk = os.read(self.from_chrome, 1 << 16)
            if not chunk:
                fail(f"Chromium closed the pipe (exit {self.p.poll()})")
            self.buf += chunk
        raw, self.buf = self.buf.split(b"\0", 1)
        return json.loads(raw)

    def call(self, method, params=None, timeout=60):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if self.session and not method.startswith("Target."):
            msg["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(msg).encode() + b"\0")
        deadline = time.time() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.next_id:
                if "error" in m:
                    fail(f"{method}: {m['error']}")
                return m.get("result", {})
            if "method" in m:
                self.events.append(m)

    def wait_event(self, name, timeout=60):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e["method"] == name:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def js(self, expression):
        r = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in r:
            fail(f"JavaScript {expression!r}: {r['exceptionDetails']}")
        return r["result"].get("value")

    def wait_for(self, expression, what, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.1)
        fail(f"the page never showed {what} ({expression})")

    def type_text(self, text):
        for ch in text:
            self.call("Input.dispatchKeyEvent", {"type": "keyDown", "text": ch, "key": ch, "unmodifiedText": ch})
            self.call("Input.dispatchKeyEvent", {"type": "keyUp", "key": ch})

    def click(self, element_id):
        box = self.js(f"JSON.stringify(document.getElementById('{element_id}').getBoundingClientRect())")
        r = json.loads(box)
        x, y = r["x"] + r["width"] / 2, r["y"] + r["height"] / 2
        self.call("Input.dispatchMouseEvent", {"type": "mouseMoved", "x": x, "y": y})
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", {"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1})

    def close(self):
        try:
            self.call("Browser.close", timeout=10)
        except SystemExit:
            pass
        try:
            self.p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()


def find_chromium():
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def main():
    bin_dir, repo, screenshot = (os.path.abspath(a) for a in sys.argv[1:4])
    chromium = find_chromium()
    if chromium is None:
        print("SKIP: no Chromium (Debian package chromium; tools/install-deps installs it)")
        sys.exit(77)
    work = tempfile.mkdtemp(prefix="realmt-web-")
    os.chdir(work)
    r = subprocess.run(["bash", "-c", f'source "{repo}/regression/tiny_model.sh" && make_tiny_model "$0"', bin_dir],
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"toy model: {r.stderr[-2000:]}")
    server = server_common.Server(bin_dir, ["-m", "model.safetensors", "-v", "vocab.spm", "--cpu-threads", "1"],
                                  "--language-pair", "en-fr")
    status, expected = server.translate({"text": [SENTENCE], "beam_size": 4})
    if status != 200:
        fail(f"the API: {status} {expected}")
    expected = expected["translations"][0]
    os.makedirs(os.path.join(work, "profile"))
    browser = Browser(chromium, os.path.join(work, "profile"))
    try:
        browser.call("Page.enable")
        browser.call("Runtime.enable")
        browser.call("Emulation.setDeviceMetricsOverride",
                     {"width": 1200, "height": 820, "deviceScaleFactor": 1, "mobile": False})
        browser.call("Page.navigate", {"url": f"http://127.0.0.1:{server.port}/"})
        browser.wait_event("Page.loadEventFired")
        direction = browser.wait_for("document.getElementById('pair').textContent",
                                     "the language pair from /v1/info")
        if direction != "en \u2192 fr":
            fail(f"direction shown: {direction!r}")
        if browser.js("document.getElementById('beam').value") != "4":
            fail("the beam size field does not show the server's default (4)")
        browser.js("document.getElementById('source').focus()")
        browser.type_text(SENTENCE)
        if browser.js("document.getElementById('source').value") != SENTENCE:
            fail("typing into the text box did not arrive")
        browser.click("translate")
        shown = browser.wait_for("document.getElementById('timing').textContent.includes('translated in') && "
                                 "document.getElementById('target').textContent", "a translation")
        if shown != expected:
            fail(f"the page shows {shown!r}, the API gives {expected!r}")
        shown_error = browser.js("document.getElementById('error').textContent")
        if shown_error:
            fail(f"the page shows an error: {shown_error}")
        browser.wait_for("Number(document.getElementById('m-ok').textContent) >= 2 && "
                         "Number(document.getElementById('m-sentences').textContent) >= 2",
                         "the metrics counting both requests (the test's and the page's)", timeout=30)
        timing = browser.js("document.getElementById('timing').textContent")
        png = base64.b64decode(browser.call("Page.captureScreenshot", {"format": "png"})["data"])
    finally:
        browser.close()
        code = server.stop()
    if code != 0:
        fail(f"realmt-server exited {code} after SIGTERM")
    if not png.startswith(b"\x89PNG\r\n\x1a\n") or len(png) < 5000:
        fail(f"the screenshot is not a PNG of a page ({len(png)} bytes)")
    os.makedirs(os.path.dirname(screenshot), exist_ok=True)
    with open(screenshot, "wb") as f:
        f.write(png)
    shutil.rmtree(work, ignore_errors=True)
    print(f"web page: typed {SENTENCE!r}, clicked Translate, the page shows {shown!r} ({timing}); "
          f"screenshot {screenshot} ({len(png)} bytes)")


main()
