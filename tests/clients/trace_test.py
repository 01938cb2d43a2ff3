#!/usr/bin/python3
"""Real lock libraries against `lockstep serve --trace`, and their Lua ports in the simulator, on
the same workload: the same commands per client and node, modulo random values (tokens, script
digests and bodies) and timing (a command, or a block of commands, repeated by a retry loop counts once).

Usage: trace_test.py LOCKSTEP_BINARY [FLOW...]

Flows (all by default):
  py        redis-py 4.3.4's Lock (Debian's python3-redis)  vs  redis-py-lock
  redlock5  node-redlock 5.0.0-beta.2 over 3 nodes (npm)    vs  node-redlock
  mutex     redis-semaphore 5.8.0's Mutex (npm)             vs  redis-semaphore-mutex
  redlock-mutex  redis-semaphore 5.8.0's RedlockMutex over 3 nodes (npm)
                                                            vs  redis-semaphore-redlock-mutex
The workload: A takes L; B tries and fails; A releases; B takes L (retrying) and releases. Each
client first sends ECHO trace-start:<name> on each connection, which says whose connection it is
and where the workload starts. Exit 0 when every flow matches, 1 with both sequences of a flow
that does not, 2 when something cannot start. Servers are stopped on exit.
"""
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis

HERE = os.path.dirname(os.path.abspath(__file__))
RANDOM = [re.compile(r"^[0-9a-f]{32}$"), re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")]


def free_port_block(n):
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n < 65535 and all(_free(p) for p in range(base, base + n)):
            return base
    raise RuntimeError("no block of free ports")


def _free(port):
    with socket.socket() as t:
        try:
            t.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def shape(argv):
    """A command with its random parts masked (and redis-semaphore's "mutex:" key prefix, which
    the port leaves out on purpose: docs/algorithms.md)."""
    cmd = argv[0].upper()
    out = [cmd]
    for i, a in enumerate(argv[1:], start=1):
        if i == 1 and cmd == "EVAL":
            out.append("<script>")
        elif i == 1 and cmd == "EVALSHA":
            out.append("<sha>")
        elif i == 2 and cmd == "SCRIPT" and argv[1].upper() == "LOAD":
            out.append("<script>")
        elif any(r.match(a) for r in RANDOM):
            out.append("<token>")
        else:
            out.append(a[len("mutex:"):] if a.startswith("mutex:") else a)
    return out


def collapse(seq):
    """A retry loop's repetitions counted once: a block of up to 4 commands repeated back to back
    (SET, or SET then a release script) is kept once, however often the loop ran."""
    out = []
    for s in seq:
        out.append(s)
        for period in range(1, 5):
            if len(out) >= 2 * period and out[-period:] == out[-2 * period:-period]:
                del out[-period:]
                break
    return out


def py_workload(ports):
    port = ports[0]
    a_client, b_client = redis.Redis(port=port), redis.Redis(port=port)
    a_client.echo("trace-start:A")
    b_client.echo("trace-start:B")
    a = a_client.lock("L", sleep=0.1)
    assert a.acquire(), "A could not take the free lock"
    b = b_client.lock("L", timeout=5, sleep=0.1)
    assert not b.acquire(blocking=False), "B took a held lock"
    done = threading.Event()

    def b_blocking():  # thread_local=True: B's token lives in this thread
        if b.acquire(blocking=True, blocking_timeout=5):
            b.release()
            done.set()

    t = threading.Thread(target=b_blocking)
    t.start()
    time.sleep(0.35)
    a.release()
    t.join(10)
    assert done.is_set(), "B's blocking acquire and release did not finish"


def node_workload(flow):
    def run(ports):
        r = subprocess.run(["node", os.path.join(HERE, "trace_flows.mjs"), flow, ",".join(map(str, ports))],
                           capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            raise RuntimeError(f"trace_flows.mjs {flow}: {r.stdout}{r.stderr}")
    return run


def steps(c1, c2):
    return {"script": [{"threads": "c1", "steps": c1}, {"threads": "c2", "steps": c2}]}


HOLD_300 = [{"op": "hold", "ms": 300}, {"op": "unlock", "lock": "L"}]
HOLD_10 = [{"op": "hold", "ms": 10}, {"op": "unlock", "lock": "L"}]
FLOWS = {
    "py": dict(nodes=1, workload=py_workload, algorithm="redis-py-lock", workload_spec=steps(
        [{"op": "lock", "lock": "L", "then": HOLD_300}],
        [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 5000, "at_ms": 50},
         {"op": "try_lock", "lock": "L", "wait_ms": 5000, "lease_ms": 5000, "then": HOLD_10}])),
    "redlock5": dict(nodes=3, workload=node_workload("redlock5"), algorithm="node-redlock", workload_spec=steps(
        [{"op": "lock", "lock": "L", "then": HOLD_300}],
        [{"op": "try_lock", "lock": "L", "wait_ms": 0, "at_ms": 50},
         {"op": "lock", "lock": "L", "then": HOLD_10}])),
    "mutex": dict(nodes=1, workload=node_workload("mutex"), algorithm="redis-semaphore-mutex", workload_spec=steps(
        [{"op": "lock", "lock": "L", "then": HOLD_300}],
        [{"op": "try_lock", "lock": "L", "wait_ms": 50, "at_ms": 50},
         {"op": "lock", "lock": "L", "then": HOLD_10}])),
    "redlock-mutex": dict(nodes=3, workload=node_workload("redlock-mutex"),
                          algorithm="redis-semaphore-redlock-mutex", workload_spec=steps(
        [{"op": "lock", "lock": "L", "then": HOLD_300}],
        [{"op": "try_lock", "lock": "L", "wait_ms": 50, "at_ms": 50},
         {"op": "lock", "lock": "L", "then": HOLD_10}])),
}


def real_sequences(binary, workdir, flow):
    spec = FLOWS[flow]
    base = free_port_block(spec["nodes"])
    trace = os.path.join(workdir, f"{flow}-trace.jsonl")
    server = subprocess.Popen([binary, "serve", "--port", str(base), "--nodes", str(spec["nodes"]), "--trace", trace],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ports = list(range(base, base + spec["nodes"]))
    try:
        deadline = time.monotonic() + 10
        for port in ports:
            while True:
                try:
                    if socket.create_connection(("127.0.0.1", port), timeout=1):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise
                    time.sleep(0.05)
        spec["workload"](ports)
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(10)
    owner, seqs = {}, {}
    with open(trace) as f:
        for line in f:
            e = json.loads(line)
            key = (e["node"], e["conn"])
            argv = e["argv"]
            if argv[0].lower() == "echo" and len(argv) == 2 and argv[1].startswith("trace-start:"):
                owner[key] = argv[1].split(":", 1)[1]
                continue
            if key in owner:
                seqs.setdefault(f"{owner[key]}@node{e['node']}", []).append(shape(argv))
    return {k: collapse(v) for k, v in sorted(seqs.items())}


def simulated_sequences(binary, workdir, flow):
    spec = FLOWS[flow]
    scenario = {"name": f"trace-{flow}", "duration_ms": 20000, "algorithm": {"name": spec["algorithm"]},
                "clients": [{"name": "c1"}, {"name": "c2"}], "workload": spec["workload_spec"],
                "expect": {"verdict": "ok"}}
    if spec["nodes"] > 1:
        scenario["topology"] = {"kind": "independent", "masters": spec["nodes"]}
    path = os.path.join(workdir, f"{flow}-scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(workdir, f"{flow}-sim")
    r = subprocess.run([binary, "run", path, "--out", out], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"lockstep run failed ({r.returncode}): {r.stdout}{r.stderr}")
    names = {"c1": "A", "c2": "B"}
    seqs = {}
    with open(os.path.join(out, "history.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            if e.get("type") != "exec" or e.get("conn") not in names:
                continue
            cmd = e["command"]
            if "keys" in e:  # a script: EVAL|EVALSHA body|digest numkeys keys args
                argv = [cmd, "-", str(len(e["keys"]))] + e["keys"] + e.get("args", [])
            else:
                argv = [cmd] + e.get("args", [])
            seqs.setdefault(f"{names[e['conn']]}@{e['node']}", []).append(shape(argv))
    return {k: collapse(v) for k, v in sorted(seqs.items())}


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    flows = sys.argv[2:] or list(FLOWS)
    failed = False
    with tempfile.TemporaryDirectory() as workdir:
        for flow in flows:
            try:
                real = real_sequences(sys.argv[1], workdir, flow)
                sim = simulated_sequences(sys.argv[1], workdir, flow)
            except Exception as e:  # noqa: BLE001 - report and exit 2
                print(f"trace_test: {flow}: cannot run: {e}")
                return 2
            if real == sim:
                print(f"{flow}: the same commands")
                for who, seq in real.items():
                    print(f"  {who}: " + " | ".join(" ".join(c[:4]) for c in seq))
            else:
                failed = True
                print(f"{flow}: the sequences differ")
                print("  library:", json.dumps(real, indent=1))
                print("  Lua port:", json.dumps(sim, indent=1))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
