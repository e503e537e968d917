#!/usr/bin/env python3
"""How fast the mock server alone answers: N client threads, each posting REQUESTS/N
Chat Completions requests of BODY_BYTES (alternating first/second turn), one connection per
request like the server wants. Prints achieved requests per second and the ideal
N / latency, so the model-bound rows can tell a slow harness from a slow replan.

    mock_probe.py PORT N REQUESTS LATENCY [BODY_BYTES]
"""
import json
import sys
import threading
import time
import urllib.request


def main(argv):
    port, n, total, latency = int(argv[1]), int(argv[2]), int(argv[3]), float(argv[4])
    size = int(argv[5]) if len(argv) > 5 else 20000
    pad = "x" * size
    bodies = [json.dumps({"messages": [{"role": "user", "content": pad}]}).encode(),
              json.dumps({"messages": [{"role": "tool", "tool_call_id": "call_del", "content": pad}]}).encode()]
    url = f"http://127.0.0.1:{port}/v1/chat/completions"
    errors = []

    def client(k):
        for i in range(total // n):
            req = urllib.request.Request(url, data=bodies[i % 2], headers={"Content-Type": "application/json"})
            try:
                with urllib.request.urlopen(req, timeout=30) as r:
                    r.read()
            except Exception as e:  # noqa: BLE001 - reported, not raised
                errors.append(str(e))

    threads = [threading.Thread(target=client, args=(k,)) for k in range(n)]
    start = time.time()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.time() - start
    done = (total // n) * n
    print(json.dumps({"requests": done, "wall": round(wall, 2), "rps": round(done / wall, 1),
                      "ideal_rps": round(n / latency, 1), "errors": len(errors)}))


if __name__ == "__main__":
    main(sys.argv)
