"""A minimal Chrome DevTools Protocol client over ``--remote-debugging-pipe``.

Drives Debian's ``chromium-headless-shell`` (``chromium`` when it is missing) with no browser
download: Chromium reads NUL-terminated JSON commands on fd 3 and writes replies and events on fd 4.
One Chromium per xdist worker (``chromium`` in tests/conftest.py); each test module gets a
browser context of its own in it (``Browser.context()``: storage, cache and cookies of its
own, as a fresh browser's) and one page (target) per ``page()``. Starting Chromium costs about
1 CPU-s machine-wide (0.55 s of it reaped by pytest); once per module, that was 15 times a run.

No verdict here depends on the machine's speed: every wait is for an event or a reply, under
one generous deadline (``DEADLINE`` seconds, ``SEALBOARD_BROWSER_DEADLINE`` to change it),
and a wait that runs out says what it waited for and for how long.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import threading
import time
from pathlib import Path
from typing import Any

# Chromium's headless shell first: the same Blink and V8 without the full browser around them,
# the build made for automation (Puppeteer's and Playwright's headless). Over the browser tests
# (`-m browser -n 2`, 73 tests, two runs each, alternating) it cost 142-146 -> 79-85 CPU-s by
# /usr/bin/time and 527-540 -> 388-409 machine-wide (/proc/stat: its renderers are reaped by the
# browser, not by pytest), 294-300 -> 230-240 s wall; every test passed with both, and the
# screenshots differ only in anti-aliasing and where a Korean line wraps.
_BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")
CHROMIUM = next((path for name in _BROWSERS if (path := shutil.which(name))), None)
# Ten minutes: a search over every item's id, or plotly drawing a chart, takes seconds on a
# quiet machine and a minute or more at load 6; only a page that never answers should fail.
DEADLINE = float(os.environ.get("SEALBOARD_BROWSER_DEADLINE", "600"))


class CDPError(RuntimeError):
    pass


class Browser:
    def __init__(self, chromium: str, profile: Path) -> None:
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def fds() -> None:  # in the child: Chromium expects the pipe on fds 3 and 4
            # dup first: a pipe end may already be fd 3 or 4, and dup2 onto itself would
            # leave it close-on-exec.
            r, w = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(r, 3)
            os.dup2(w, 4)

        args = [
            chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-quic",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-default-apps", "--disable-extensions", "--hide-scrollbars", "--mute-audio",
            f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank",
        ]  # fmt: skip
        self.proc = subprocess.Popen(args, preexec_fn=fds, close_fds=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._next = 0
        self._lock = threading.Lock()
        self._cond = threading.Condition()
        self._replies: dict[int, dict[str, Any]] = {}
        self.events: list[dict[str, Any]] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        # A message (a screenshot's base64 PNG: megabytes) arrives in many reads: its start is
        # kept in a bytearray and only each new chunk is searched for the NUL that ends it.
        # (Appending to bytes and searching the whole buffer on every read copied and scanned
        # it over and over: py-spy put this thread at ~500 samples of a full run.)
        pending = bytearray()
        while True:
            chunk = os.read(self._r, 1 << 20)
            if not chunk:
                with self._cond:
                    self._replies[-1] = {"error": {"message": "browser closed"}}
                    self._cond.notify_all()
                return
            start = 0
            while (end := chunk.find(b"\0", start)) >= 0:
                pending += chunk[start:end]
                msg = json.loads(pending)
                pending.clear()
                start = end + 1
                with self._cond:
                    if "id" in msg:
                        self._replies[msg["id"]] = msg
                    else:
                        self.events.append(msg)
                    self._cond.notify_all()
            pending += chunk[start:]

    def send(
        self, method: str, params: dict[str, Any] | None = None, session: str | None = None, timeout: float = DEADLINE, what: str = ""
    ) -> dict[str, Any]:
        with self._lock:
            self._next += 1
            mid = self._next
        msg: dict[str, Any] = {"id": mid, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        started = time.monotonic()
        with self._cond:
            if not self._cond.wait_for(lambda: mid in self._replies or -1 in self._replies, timeout):
                raise CDPError(
                    f"{method}: no reply after {time.monotonic() - started:.0f}s (deadline {timeout:.0f}s){what and ', waiting for ' + what}"
                )
            reply = self._replies.pop(mid, None) or self._replies[-1]
        if "error" in reply:
            raise CDPError(f"{method}: {reply['error'].get('message')}")
        return reply.get("result", {})

    def wait_event(self, method: str, session: str, since: int, timeout: float = DEADLINE) -> dict[str, Any]:
        def found() -> dict[str, Any] | None:
            return next((e for e in self.events[since:] if e.get("method") == method and e.get("sessionId") == session), None)

        with self._cond:
            if not self._cond.wait_for(lambda: found() is not None, timeout):
                raise CDPError(f"no {method} event in {timeout:.0f}s")
            return found()  # type: ignore[return-value]

    def context(self) -> Context:
        return Context(self)

    def page(self, width: int, height: int, context: str | None = None) -> Page:
        params = {"url": "about:blank"} | ({"browserContextId": context} if context else {})
        target = self.send("Target.createTarget", params)["targetId"]
        session = self.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        page = Page(self, session, target)
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.send(f"{domain}.enable", session=session)
        self.send(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
            session=session,
        )
        return page

    def close(self) -> None:
        try:
            self.send("Browser.close", timeout=10)
        except CDPError:
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        os.close(self._w)


class Context:
    """A browser context in the worker's Chromium: what one test module sees, kept apart from
    the other modules' as a browser of its own would be (``Target.createBrowserContext``)."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.id = browser.send("Target.createBrowserContext")["browserContextId"]

    def page(self, width: int, height: int) -> Page:
        return self.browser.page(width, height, context=self.id)

    def send(self, method: str, params: dict[str, Any] | None = None, session: str | None = None) -> dict[str, Any]:
        return self.browser.send(method, params, session)

    def close(self) -> None:  # its pages go with it
        self.browser.send("Target.disposeBrowserContext", {"browserContextId": self.id})


class Page:
    def __init__(self, browser: Browser, session: str, target: str) -> None:
        self.b, self.session, self.target = browser, session, target
        self.mark = len(browser.events)

    def goto(self, url: str) -> None:
        self.mark = len(self.b.events)
        self.b.send("Page.navigate", {"url": url}, session=self.session)
        self.b.wait_event("Page.loadEventFired", self.session, self.mark)

    def eval(self, expression: str) -> Any:
        out = self.b.send(
            "Runtime.evaluate",
            {"expression": expression, "returnByValue": True, "awaitPromise": True},
            session=self.session,
            what=repr(expression[-160:]),
        )
        if "exceptionDetails" in out:
            raise CDPError(
                f"{expression[:80]}: {out['exceptionDetails'].get('exception', {}).get('description') or out['exceptionDetails'].get('text')}"
            )
        return out["result"].get("value")

    def draw_charts(self, timeout_ms: int = int(DEADLINE * 1000) // 2) -> bool:
        """Scroll each board chart into view and wait until sealboard.js has drawn it
        (plotly.js is fetched once the visitor has scrolled, for a chart near the screen);
        back to the top after. On a page too short to scroll, the chart's "Draw the chart"
        button is pressed instead, as a visitor would. True when every chart drew."""
        return bool(
            self.eval(f"""(async () => {{
          const until = Date.now() + {timeout_ms};
          for (const el of document.querySelectorAll('.sb-chart')) {{
            el.scrollIntoView();
            const now = el.nextElementSibling && el.nextElementSibling.querySelector('.sb-chart-draw');
            if (scrollY === 0 && now && !el.dataset.drawn) now.click();
            while (!el.dataset.drawn && Date.now() < until) await new Promise(r => setTimeout(r, 25));
          }}
          window.scrollTo(0, 0);
          return [...document.querySelectorAll('.sb-chart')].every(el => el.dataset.drawn);
        }})()""")
        )

    def click(self, selector: str) -> None:
        self.eval(f"document.querySelector({json.dumps(selector)}).click()")

    def _events(self) -> list[dict[str, Any]]:
        return [e for e in self.b.events[self.mark :] if e.get("sessionId") == self.session]

    def errors(self) -> list[str]:
        """Console errors and uncaught exceptions since the last navigation."""
        out = []
        for e in self._events():
            p = e.get("params", {})
            if e["method"] == "Runtime.exceptionThrown":
                out.append(p["exceptionDetails"].get("exception", {}).get("description") or p["exceptionDetails"].get("text", ""))
            elif e["method"] == "Runtime.consoleAPICalled" and p.get("type") == "error":
                out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
            elif e["method"] == "Log.entryAdded" and p["entry"].get("level") == "error":
                out.append(f"{p['entry'].get('text')} {p['entry'].get('url', '')}")
        return out

    def requests(self) -> list[str]:
        return [e["params"]["request"]["url"] for e in self._events() if e["method"] == "Network.requestWillBeSent"]

    def screenshot(self, path: Path, max_height: int = 2400) -> None:
        height = min(int(self.eval("document.documentElement.scrollHeight")), max_height)
        width = int(self.eval("window.innerWidth"))
        clip = {"x": 0, "y": 0, "width": width, "height": height, "scale": 1}
        # optimizeForSpeed: Chromium's fast PNG encoding, 20% larger files for 40% less of its CPU a
        # shot (0.31 -> 0.18 machine CPU-s, a 1400x2400 board, 5 shots each way); 59 shots a run.
        shot = {"format": "png", "clip": clip, "captureBeyondViewport": True, "optimizeForSpeed": True}
        data = self.b.send("Page.captureScreenshot", shot, session=self.session)["data"]
        # The folder is gitignored and any test (or xdist worker) may be the first to shoot.
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))

    def close(self) -> None:
        self.b.send("Target.closeTarget", {"targetId": self.target})
