"""gno_query fast, warm, over `gno mcp` (stdio): one warm-up call, then the
first N lines of QUERIES as {"fast": true}; prints meta of the warm-up
(vectorIndex says graph or store) and p50/p90/mean in ms.

Usage: GNO_MODELS_DIR=~/.cache/gno/models python3 bench/postgres/mcpquery.py GNO GNO_HOME QUERIES N
"""
import json
import os
import statistics
import subprocess
import sys
import time

gno, home, queries, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
qs = [line.strip() for line in open(queries) if line.strip()][:n]
p = subprocess.Popen([gno, "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                     env=dict(os.environ, GNO_HOME=home), text=True, bufsize=1)
seq = 0


def send(msg):
    p.stdin.write(json.dumps(msg) + "\n")
    p.stdin.flush()


def call(method, params):
    global seq
    seq += 1
    send({"jsonrpc": "2.0", "id": seq, "method": method, "params": params})
    while True:
        m = json.loads(p.stdout.readline())
        if m.get("id") == seq:
            return m


def query(text):
    t = time.perf_counter()
    m = call("tools/call", {"name": "gno_query", "arguments": {"query": text, "fast": True}})
    return (time.perf_counter() - t) * 1000, m


call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
_, m = query("warm up the models")
print("meta:", json.dumps(m["result"].get("structuredContent", {}).get("meta")))
ts = sorted(query(q)[0] for q in qs)
print(f"{home}: n={len(ts)} p50={statistics.median(ts):.1f} ms p90={ts[int(len(ts) * 0.9)]:.1f} ms mean={statistics.mean(ts):.1f} ms")
p.stdin.close()
p.wait()
