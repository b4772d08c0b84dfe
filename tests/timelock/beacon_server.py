"""A drand beacon on loopback for the time-lock tests: a chain whose BLS key the test made.

It serves drand's HTTP API as relays do (``/info``, ``/public/<n>`` and ``/<chain hash>/…``),
signing a round only once its time has come by the real clock, as a real beacon would
(``future_rounds=True`` lets a hostile test serve a round early). ``forged`` maps a round to
bytes served instead of its signature.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from builder.timelock import ibe
from builder.timelock.beacon import beacon_json
from builder.timelock.chain import Chain


@dataclass
class LoopbackBeacon:
    secret: int
    chain: Chain
    url: str = ""
    future_rounds: bool = False
    forged: dict[int, bytes] = field(default_factory=dict)
    requests: list[str] = field(default_factory=list)

    def signature(self, round_number: int) -> bytes:
        return ibe.sign_round(self.secret, round_number)

    def current_round(self) -> int:
        return (int(time.time()) - self.chain.genesis_time) // self.chain.period + 1

    def info(self) -> dict[str, object]:
        return {
            "public_key": self.chain.public_key,
            "period": self.chain.period,
            "genesis_time": self.chain.genesis_time,
            "hash": self.chain.hash,
            "groupHash": hashlib.sha256(self.chain.hash.encode()).hexdigest(),
            "schemeID": self.chain.scheme,
            "metadata": {"beaconID": "sealboard-test"},
        }


def make_chain(genesis_ago_s: int = 30 * 24 * 3600, period: int = 3) -> tuple[int, Chain]:
    secret = secrets.randbelow(ibe.R_ORDER - 1) + 1
    public_key = ibe.public_key_of(secret).hex()
    chain = Chain(
        hash=hashlib.sha256(b"sealboard test chain " + public_key.encode()).hexdigest(),
        public_key=public_key,
        period=period,
        genesis_time=int(time.time()) - genesis_ago_s,
    )
    return secret, chain


@contextmanager
def serve(beacon: LoopbackBeacon) -> Iterator[LoopbackBeacon]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            path = self.path.split("?", 1)[0]
            beacon.requests.append(path)
            parts = [p for p in path.split("/") if p]
            if parts and parts[0] == beacon.chain.hash:
                parts = parts[1:]
            body: bytes | None = None
            if parts == ["info"]:
                body = json.dumps(beacon.info()).encode()
            elif len(parts) == 2 and parts[0] == "public" and parts[1].isdigit():
                n = int(parts[1])
                if n in beacon.forged:
                    body = beacon.forged[n]
                elif beacon.future_rounds or n <= beacon.current_round():
                    body = beacon_json(n, beacon.signature(n))
            if body is None:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 (http.server's name)
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    beacon.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield beacon
    finally:
        server.shutdown()
        server.server_close()
        thread.join()
