#!/usr/bin/env python3
"""An OpenAI-compatible Chat Completions server that plays a script, for tests.

Usage: mock_openai.py SCRIPT.json [--record FILE]

Binds 127.0.0.1 on a free port and prints "PORT <n>" as its first stdout line. The
script is a JSON list of rules:

    {"match": "<substring of the raw request body, or null for any>",
     "responses": [ ... ], "repeat": false}

Each `POST .../chat/completions` goes to the first rule whose `match` occurs in the raw
request body and that still has responses left; a rule with `"repeat": true` keeps
answering with its last response. A response is

    {"status": 200, "body": {...json...}, "text": "raw body instead of json",
     "headers": {...}, "delay": seconds, "keepAlive": true (keep the connection open),
     "interim": {"status": 103, "headers": {...}},     (a 1xx block sent first)
     "afterRequests": N}   (held until N requests in all have arrived; after 8 s without
                            them, a 500 `mock_not_concurrent` instead: proves requests
                            overlap by an event, not by how long they took)

or a fault:

    {"fault": "hang"}                       sleep 300 s, then close without answering
    {"fault": "drop"}                       close the connection without any response
    {"fault": "truncate", "body": {...}}    announce more bytes than are sent, then close
    {"fault": "huge", "bytes": N, "length": true}
                                            a 200 with an N-byte body; "length": false
                                            omits Content-Length (body ends at close)
    {"fault": "raw", "status": 200, "text": "not json"}
    {"fault": "http09", "text": "hello"}    the text alone, no status line or headers
                                            (an HTTP/0.9 reply: some other service
                                            on the port), then close

A request that no rule matches gets a 500 with an OpenAI-style error body saying so.

The script may instead be an object {"rules": [...], "bucket": {...}}: the server then
enforces a rate limit the way OpenAI documents it, a token bucket and a request bucket that
refill continuously over "window" seconds:

    "bucket": {"tokens": 2000000, "requests": 10000, "window": 60, "headersAt": "answer"}

Each chat request is charged ceil(body bytes / 4) + its max_completion_tokens (the
provider's estimate) and one request when it arrives. When either bucket cannot pay, the
answer is a 429 `rate_limit_exceeded` with `retry-after-ms`; otherwise the scripted answer is
played. Every answer carries x-ratelimit-{limit,remaining,reset}-{requests,tokens} (resets as
`1.5s`), and responses keep the connection open unless they say "keepAlive": false. The
headers describe the bucket when the answer is written ("headersAt": "answer", the default) or
as it was right after the request was admitted and charged ("headersAt": "admission", as a
provider may compute them), however long the answer then takes.
`GET /_stats` returns what the bucket saw: requests, rate_limited, charged tokens, first and
last arrival times (monotonic seconds), and the bucket.

Every request (method, path, lowercased headers, parsed JSON body, raw body) is recorded
before it is answered. `GET /_requests` returns the records as a JSON list and
`POST /_reset` clears them; with `--record FILE` each record is also appended to FILE as
one JSON line, so a test can read them without an HTTP client of its own.

The server exits when its stdin reaches end of file (the test process went away) or on
SIGTERM, whatever requests are still in flight.
"""

import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    """The rules and how far each has been played; shared by all handler threads."""

    def __init__(self, rules):
        self._lock = threading.Lock()
        self._rules = [
            {
                "match": rule.get("match"),
                "responses": list(rule.get("responses", [])),
                "repeat": bool(rule.get("repeat", False)),
                "next": 0,
            }
            for rule in rules
        ]

    def next_response(self, raw_body):
        with self._lock:
            for rule in self._rules:
                match = rule["match"]
                if match is not None and match not in raw_body:
                    continue
                responses = rule["responses"]
                if rule["next"] < len(responses):
                    response = responses[rule["next"]]
                    rule["next"] += 1
                    return response
                if rule["repeat"] and responses:
                    return responses[-1]
            return None


class Bucket:
    """OpenAI-style rate limits: tokens and requests refilled continuously over a window."""

    def __init__(self, config):
        self._lock = threading.Lock()
        self.tokens_limit = float(config.get("tokens", 2000000))
        self.requests_limit = float(config.get("requests", 10000))
        self.window = float(config.get("window", 60))
        self.headers_at = config.get("headersAt", "answer")
        self._tokens = self.tokens_limit
        self._requests = self.requests_limit
        self._at = time.monotonic()
        self.stats = {"requests": 0, "rate_limited": 0, "charged": 0, "first": None, "last": None}

    def _refill(self, now):
        elapsed = now - self._at
        self._at = now
        self._tokens = min(self.tokens_limit, self._tokens + elapsed * self.tokens_limit / self.window)
        self._requests = min(self.requests_limit, self._requests + elapsed * self.requests_limit / self.window)

    def charge(self, cost):
        """Returns (admitted, seconds to wait when refused)."""
        with self._lock:
            now = time.monotonic()
            self._refill(now)
            self.stats["requests"] += 1
            if self._tokens < cost or self._requests < 1:
                self.stats["rate_limited"] += 1
                wait = max((cost - self._tokens) * self.window / self.tokens_limit,
                           (1 - self._requests) * self.window / self.requests_limit, 0.001)
                return False, wait
            self._tokens -= cost
            self._requests -= 1
            self.stats["charged"] += cost
            if self.stats["first"] is None:
                self.stats["first"] = now
            self.stats["last"] = now
            return True, 0

    def headers(self):
        with self._lock:
            self._refill(time.monotonic())
            t = max(0.0, self._tokens)
            r = max(0.0, self._requests)
            return {
                "x-ratelimit-limit-tokens": "%d" % self.tokens_limit,
                "x-ratelimit-remaining-tokens": "%d" % t,
                "x-ratelimit-reset-tokens": "%.3fs" % ((self.tokens_limit - t) * self.window / self.tokens_limit),
                "x-ratelimit-limit-requests": "%d" % self.requests_limit,
                "x-ratelimit-remaining-requests": "%d" % r,
                "x-ratelimit-reset-requests": "%.3fs" % ((self.requests_limit - r) * self.window / self.requests_limit),
            }

    def snapshot(self):
        with self._lock:
            return dict(self.stats, tokens_limit=self.tokens_limit, requests_limit=self.requests_limit, window=self.window)


class Recorder:
    """Every request the server saw, in arrival order."""

    def __init__(self, path):
        self._lock = threading.Lock()
        self._arrived = threading.Condition(self._lock)
        self._records = []
        self._path = path

    def add(self, record):
        with self._lock:
            self._records.append(record)
            if self._path:
                with open(self._path, "a", encoding="utf-8") as log:
                    log.write(json.dumps(record) + "\n")
            self._arrived.notify_all()

    def wait_for(self, count, timeout):
        """Whether `count` requests in all have arrived within `timeout` seconds."""
        with self._arrived:
            return self._arrived.wait_for(lambda: len(self._records) >= count, timeout)

    def all(self):
        with self._lock:
            return list(self._records)

    def clear(self):
        with self._lock:
            self._records.clear()
            if self._path:
                open(self._path, "w").close()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "mock-openai/1"

    def log_message(self, format, *args):
        if os.environ.get("MOCK_OPENAI_VERBOSE"):
            sys.stderr.write("mock_openai: " + (format % args) + "\n")

    # --- request entry points -------------------------------------------------------

    def do_GET(self):
        self._read_body()
        if self.path == "/_requests":
            self._send_json(200, self.server.recorder.all())
        elif self.path == "/_stats":
            bucket = self.server.bucket
            self._send_json(200, bucket.snapshot() if bucket else {})
        else:
            self._send_json(404, error_body("no such path: GET " + self.path, "unknown_url"))

    def do_POST(self):
        self._admitted_headers = None
        raw = self._read_body()
        if self.path == "/_reset":
            self.server.recorder.clear()
            self._send_json(200, {"ok": True})
            return
        self._record(raw)
        if not self.path.split("?")[0].endswith("/chat/completions"):
            self._send_json(404, error_body("no such path: POST " + self.path, "unknown_url"))
            return
        text = raw.decode("utf-8", "replace")
        bucket = self.server.bucket
        if bucket is not None:
            try:
                cap = int((json.loads(text) or {}).get("max_completion_tokens") or 0)
            except (ValueError, AttributeError):
                cap = 0
            admitted, wait = bucket.charge((len(raw) + 3) // 4 + max(0, cap))
            if not admitted:
                headers = bucket.headers()
                headers["retry-after-ms"] = "%d" % max(1, int(wait * 1000))
                body = error_body("Rate limit reached on tokens per min (TPM); please try again later.", "rate_limit_exceeded")
                body["error"]["type"] = "tokens"
                self._send_bytes(429, json.dumps(body).encode(), "application/json", {"headers": headers, "keepAlive": True})
                return
            if bucket.headers_at == "admission":
                self._admitted_headers = bucket.headers()
        response = self.server.script.next_response(text)
        if response is None:
            self._send_json(500, error_body("mock_openai: no script rule matches this request", "mock_unmatched"))
            return
        self._play(response)

    # --- playing a scripted response ------------------------------------------------

    def _play(self, response):
        together = response.get("afterRequests")
        if together and not self.server.recorder.wait_for(int(together), 8):
            message = "mock_openai: %d requests did not arrive together" % int(together)
            self._send_json(500, error_body(message, "mock_not_concurrent"))
            return
        delay = response.get("delay", 0)
        if delay:
            time.sleep(delay)
        fault = response.get("fault")
        if fault == "hang":
            time.sleep(300)
            self.close_connection = True
        elif fault == "drop":
            self.close_connection = True
        elif fault == "truncate":
            payload = json.dumps(response.get("body", {"truncated": True})).encode()
            self._start(200, {"Content-Type": "application/json", "Content-Length": str(len(payload) + 1000)})
            self.wfile.write(payload[: len(payload) // 2])
            self.wfile.flush()
            self.close_connection = True
        elif fault == "huge":
            self._send_huge(int(response.get("bytes", 10 * 1024 * 1024)), response.get("length", True))
        elif fault == "raw":
            text = response.get("text", "")
            self._send_bytes(response.get("status", 200), text.encode(), "text/plain", response)
        elif fault == "http09":
            self.wfile.write(response.get("text", "hello").encode())
            self.wfile.flush()
            self.close_connection = True
        elif fault is not None:
            self._send_json(500, error_body("mock_openai: unknown fault " + repr(fault), "mock_bad_script"))
        elif "text" in response:
            self._send_bytes(response.get("status", 200), response["text"].encode(), "text/plain", response)
        else:
            payload = json.dumps(response.get("body", {})).encode()
            self._send_bytes(response.get("status", 200), payload, "application/json", response)

    def _send_huge(self, size, announce_length):
        headers = {"Content-Type": "application/json"}
        if announce_length:
            headers["Content-Length"] = str(size)
        self._start(200, headers)
        chunk = b"x" * 65536
        sent = 0
        while sent < size:
            piece = chunk[: min(len(chunk), size - sent)]
            self.wfile.write(piece)
            sent += len(piece)
        self.close_connection = True

    # --- plumbing -------------------------------------------------------------------

    def _read_body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _record(self, raw):
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            body = None
        self.server.recorder.add({
            "method": self.command,
            "path": self.path,
            "headers": {name.lower(): value for name, value in self.headers.items()},
            "body": body,
            "raw": raw.decode("utf-8", "replace"),
        })

    def _start(self, status, headers, keep_alive=False):
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        if not keep_alive:
            self.send_header("Connection", "close")
        self.end_headers()

    def _send_bytes(self, status, payload, content_type, response):
        interim = response.get("interim")
        if interim:
            self.send_response_only(interim.get("status", 103))
            for name, value in interim.get("headers", {}).items():
                self.send_header(name, value)
            self.end_headers()
        headers = {"Content-Type": content_type, "Content-Length": str(len(payload))}
        headers.update(response.get("headers", {}))
        keep_alive = bool(response.get("keepAlive"))
        bucket = self.server.bucket
        if bucket is not None:
            if "x-ratelimit-remaining-tokens" not in headers:
                headers.update(getattr(self, "_admitted_headers", None) or bucket.headers())
            keep_alive = response.get("keepAlive", True) is not False
        self._start(status, headers, keep_alive)
        self.wfile.write(payload)
        self.close_connection = not keep_alive

    def _send_json(self, status, value):
        self._send_bytes(status, json.dumps(value).encode(), "application/json", {})

    def handle(self):
        # A client that gives up (timeout, size cap, cancellation) closes its end while we
        # still write; that is the expected outcome of those tests, not a server error.
        try:
            super().handle()
        except (BrokenPipeError, ConnectionResetError):
            pass


def error_body(message, code):
    return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": code}}


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def handle_error(self, request, client_address):
        if sys.exc_info()[0] in (BrokenPipeError, ConnectionResetError):
            return
        super().handle_error(request, client_address)


def exit_when_stdin_closes():
    try:
        while sys.stdin.buffer.read(4096):
            pass
    except (OSError, ValueError):
        pass
    os._exit(0)


def main(argv):
    if len(argv) < 2:
        sys.stderr.write("usage: mock_openai.py SCRIPT.json [--record FILE]\n")
        return 2
    with open(argv[1], encoding="utf-8") as script_file:
        rules = json.load(script_file)
    bucket = None
    if isinstance(rules, dict):
        bucket = Bucket(rules["bucket"]) if rules.get("bucket") else None
        rules = rules.get("rules", [])
    record_path = None
    if "--record" in argv:
        record_path = argv[argv.index("--record") + 1]

    server = Server(("127.0.0.1", 0), Handler)
    server.script = Script(rules)
    server.bucket = bucket
    server.recorder = Recorder(record_path)

    # A parent that spawns us from a worker thread (Foundation's Process under libdispatch)
    # hands down a mask blocking nearly every signal, which would make SIGTERM wait forever.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    threading.Thread(target=exit_when_stdin_closes, daemon=True).start()

    print("PORT %d" % server.server_address[1], flush=True)
    server.serve_forever(poll_interval=0.2)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
