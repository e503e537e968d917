#!/usr/bin/env python3
"""Token figures of recorded model requests (bench/model.sh), with the o200k tokenizer of
`bpe-openai` (pip install bpe-openai; it works offline):

    tokens.py REQUESTS.jsonl [--growth 400] [--output 1000] [--scale 100]
              [--price-input 1.25] [--price-cached 0.125] [--price-output 10]

A request's tokens are those of its messages' contents plus its tool definitions (compact
JSON), which the provider puts in front of the messages. Per student (the prompt_cache_key)
the first request is the one with two messages.

The cost of a night is estimated for 4-request conversations of every student asked: request
k has the first request's tokens plus (k - 1) x --growth (an assistant tool call and its
result; 400 is what the issue's own 30,500-token conversation implies), --output tokens out.
Cached input: for the first request, the prefix every student shares (tools + system
message) when it reaches 1,024 tokens, in 128-token steps; for a later request, the whole
previous request (the provider caches per prompt_cache_key). Multiplied by --scale (the
1,000 bench students are the first 1,000 of the 100,000).

The measured cost (`measuredNightCostUSD`) prices the requests actually recorded instead: each
request's own tokens (tools + every message's content and tool-call arguments), cached as above
(the shared prefix on a student's first request, the previous request of the same student on a
later one), and --output tokens out per request (what the scripted mock answers: its usage says
1,000 completion tokens). Multiplied by --scale.
"""
import argparse
import json
import statistics
import sys

import bpe_openai


def cached(tokens):
    return (tokens // 128) * 128 if tokens >= 1024 else 0


def main(argv):
    p = argparse.ArgumentParser()
    p.add_argument("requests")
    p.add_argument("--growth", type=int, default=400)
    p.add_argument("--output", type=int, default=1000)
    p.add_argument("--scale", type=float, default=100)
    p.add_argument("--price-input", type=float, default=1.25)
    p.add_argument("--price-cached", type=float, default=0.125)
    p.add_argument("--price-output", type=float, default=10)
    a = p.parse_args(argv[1:])
    enc = bpe_openai.get_encoding("o200k_base")
    count = lambda text: len(enc.encode(text)) if text else 0
    firsts = {}
    systems = set()
    measured = []  # (cache key, tokens) of every request, in order
    tools_tokens = None
    requests = 0
    for line in open(a.requests, encoding="utf-8"):
        r = json.loads(line)
        body = r.get("body") or {}
        messages = body.get("messages") or []
        if not messages:
            continue
        requests += 1
        key = body.get("prompt_cache_key") or ("#%d" % requests)
        if tools_tokens is None:
            tools_tokens = count(json.dumps(body.get("tools") or [], separators=(",", ":"), ensure_ascii=False))
        tokens = tools_tokens
        for m in messages:
            content = m.get("content")
            tokens += count(content if isinstance(content, str) else json.dumps(content or ""))
            for call in m.get("tool_calls") or []:
                tokens += count((call.get("function") or {}).get("arguments") or "")
        measured.append((key, tokens))
        if len(messages) != 2 or key in firsts:
            continue
        if tools_tokens is None:
            tools_tokens = count(json.dumps(body.get("tools") or [], separators=(",", ":"), ensure_ascii=False))
        system = messages[0].get("content") or ""
        systems.add(system)
        firsts[key] = {"system": count(system), "user": count(messages[1].get("content") or ""), "tools": tools_tokens}
    if not firsts:
        json.dump({"students": 0}, sys.stdout)
        print()
        return
    totals = [f["system"] + f["user"] + f["tools"] for f in firsts.values()]
    static = max(f["system"] for f in firsts.values()) + tools_tokens
    cost = 0.0
    input_tokens = 0
    for total in totals:
        previous = None
        for k in range(4):
            tokens = total + k * a.growth
            hit = cached(static if previous is None else previous)
            cost += ((tokens - hit) * a.price_input + hit * a.price_cached + a.output * a.price_output) / 1e6
            input_tokens += tokens
            previous = tokens
    measured_cost = 0.0
    last = {}
    for key, tokens in measured:
        hit = min(tokens, cached(last[key] if key in last else static))
        measured_cost += ((tokens - hit) * a.price_input + hit * a.price_cached + a.output * a.price_output) / 1e6
        last[key] = tokens
    json.dump({
        "students": len(firsts),
        "requests": requests,
        "firstRequestMedian": statistics.median(totals),
        "firstRequestP90": sorted(totals)[int(0.9 * (len(totals) - 1))],
        "firstRequestMax": max(totals),
        "userMessageMedian": statistics.median(f["user"] for f in firsts.values()),
        "systemTokens": max(f["system"] for f in firsts.values()),
        "toolsTokens": tools_tokens,
        "distinctSystemMessages": len(systems),
        "conversationInputMedian": statistics.median(4 * t + 6 * a.growth for t in totals),
        "nightCostUSD": round(cost, 4),
        "scaledNightCostUSD": round(cost * a.scale, 2),
        "measuredRequests": len(measured),
        "measuredInputTokens": sum(t for _, t in measured),
        "measuredNightCostUSD": round(measured_cost * a.scale, 2),
        "scale": a.scale,
    }, sys.stdout)
    print()


if __name__ == "__main__":
    main(sys.argv)
