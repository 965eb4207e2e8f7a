"""gno_query fast (or another tool), warm, over `gno mcp` (stdio): one
warm-up call, then the first N lines of QUERIES as {"fast": true} (TOOL
gno_search: {"query": ...} alone); prints meta of the warm-up (vectorIndex
says graph or store), p50/p90/mean in ms, and the CPU the gno process
spent per call (user+sys from /proc, the warm-up excluded).

Usage: GNO_MODELS_DIR=~/.cache/gno/models python3 bench/postgres/mcpquery.py GNO GNO_HOME QUERIES N [TOOL]
PGPID=PID (the postmaster, `head -1 .cache/pg/data/postmaster.pid`) adds the
server's CPU per call: the postmaster's own, its reaped and its live
children's user+sys, before and after (nothing else may use that server).
"""
import json
import os
import statistics
import subprocess
import sys
import time

gno, home, queries, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
tool = sys.argv[5] if len(sys.argv) > 5 else "gno_query"
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
    args = {"query": text, "fast": True} if tool == "gno_query" else {"query": text}
    m = call("tools/call", {"name": tool, "arguments": args})
    return (time.perf_counter() - t) * 1000, m


call("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}})
send({"jsonrpc": "2.0", "method": "notifications/initialized"})
_, m = query("warm up the models")
print("meta:", json.dumps(m["result"].get("structuredContent", {}).get("meta")))


def cpu():
    f = open(f"/proc/{p.pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def srvcpu():
    pm = os.environ.get("PGPID")
    if not pm:
        return 0.0
    f = open(f"/proc/{pm}/stat").read().rsplit(")", 1)[1].split()
    t = sum(int(x) for x in f[11:15])
    for c in open(f"/proc/{pm}/task/{pm}/children").read().split():
        try:
            g = open(f"/proc/{c}/stat").read().rsplit(")", 1)[1].split()
            t += int(g[11]) + int(g[12])
        except OSError:
            pass
    return t / os.sysconf("SC_CLK_TCK")


c0, s0 = cpu(), srvcpu()
ts, errors = [], 0
for q in qs:
    ms, m = query(q)
    ts.append(ms)
    if "error" in m or m.get("result", {}).get("isError"):
        errors += 1
ts.sort()
per = (cpu() - c0) * 1000 / len(ts)
srv = (srvcpu() - s0) * 1000 / len(ts)
load = open("/proc/loadavg").read().split()[0]
print(f"{home} {tool}: n={len(ts)} p50={statistics.median(ts):.1f} ms p90={ts[int(len(ts) * 0.9)]:.1f} ms mean={statistics.mean(ts):.1f} ms"
      f" gno cpu={per:.1f} ms/call server cpu={srv:.1f} ms/call errors={errors} load={load}")
p.stdin.close()
p.wait()
