#!/usr/bin/env python3
"""Tests/Support/mock_openai.py for the benchmark: the same server and script format, with a
listen backlog of 512 instead of socketserver's 5. The mock closes every connection after one
response, so at --concurrency 32 up to 32 connects arrive at once; with a backlog of 5 the
kernel drops the excess SYNs and the client retries a second later, which measures the
backlog, not replan. Usage as mock_openai.py: mock_server.py SCRIPT.json [--record FILE]."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Support"))
import mock_openai  # noqa: E402

mock_openai.Server.request_queue_size = 512

if __name__ == "__main__":
    sys.exit(mock_openai.main(sys.argv))
