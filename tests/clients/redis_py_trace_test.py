#!/usr/bin/python3
"""redis-py's Lock against `lockstep serve --trace` and the Lua port (algorithms/ecosystem/
redis_py_lock.lua) in the simulator, on the same workload: the same command sequences per client,
modulo random values (tokens, script digests and bodies) and timing (a retried command counts
once).

Usage: redis_py_trace_test.py LOCKSTEP_BINARY

The workload: A takes L with no timeout; B tries it without blocking (fails) with timeout=5;
A releases; B takes it blocking (timeout=5) and releases. Exit 0 when the sequences match, 1 with
both sequences when they do not, 2 when something cannot start. The server is stopped on exit.
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

TOKEN = re.compile(r"^[0-9a-f]{32}$")
SHA = re.compile(r"^[0-9a-f]{40}$")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def shape(argv):
    """A command with its random parts masked."""
    out = []
    for i, a in enumerate(argv):
        if TOKEN.match(a):
            out.append("<token>")
        elif SHA.match(a):
            out.append("<sha>")
        elif i == 2 and argv[0].upper() == "SCRIPT" and argv[1].upper() == "LOAD":
            out.append("<script>")
        else:
            out.append(a)
    out[0] = out[0].upper()
    return out


def collapse(seq):
    """Consecutive repeats (retries) count once: how many there are is timing."""
    out = []
    for s in seq:
        if not out or out[-1] != s:
            out.append(s)
    return out


def real_sequences(binary, workdir):
    port = free_port()
    trace = os.path.join(workdir, "trace.jsonl")
    server = subprocess.Popen([binary, "serve", "--port", str(port), "--trace", trace],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                if redis.Redis(port=port, socket_timeout=1).ping():
                    break
            except redis.exceptions.ConnectionError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        a_client, b_client = redis.Redis(port=port), redis.Redis(port=port)
        a_client.ping()
        b_client.ping()
        with open(trace) as f:  # the PINGs so far are not part of the workload
            skip = sum(1 for _ in f)
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
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(10)
    per_conn = {}
    with open(trace) as f:
        for n, line in enumerate(f):
            if n < skip:
                continue
            e = json.loads(line)
            per_conn.setdefault(e["conn"], []).append(shape(e["argv"]))
    conns = sorted(per_conn)
    if len(conns) != 2:
        raise RuntimeError(f"expected 2 connections in the trace, found {len(conns)}")
    return {"A": collapse(per_conn[conns[0]]), "B": collapse(per_conn[conns[1]])}


def simulated_sequences(binary, workdir):
    scenario = {
        "name": "redis-py-trace", "duration_ms": 10000,
        "algorithm": {"name": "redis-py-lock"},
        "clients": [{"name": "c1"}, {"name": "c2"}],
        "workload": {"script": [
            {"threads": "c1", "steps": [{"op": "lock", "lock": "L",
                                          "then": [{"op": "hold", "ms": 500}, {"op": "unlock", "lock": "L"}]}]},
            {"threads": "c2", "steps": [
                {"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 5000, "at_ms": 100},
                {"op": "try_lock", "lock": "L", "wait_ms": 5000, "lease_ms": 5000,
                 "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "L"}]}]}]},
        "expect": {"verdict": "ok"},
    }
    path = os.path.join(workdir, "scenario.json")
    with open(path, "w") as f:
        json.dump(scenario, f)
    out = os.path.join(workdir, "sim")
    r = subprocess.run([binary, "run", path, "--out", out], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"lockstep run failed ({r.returncode}): {r.stdout}{r.stderr}")
    per_client = {"c1": [], "c2": []}
    with open(os.path.join(out, "history.jsonl")) as f:
        for line in f:
            e = json.loads(line)
            if e.get("type") != "exec" or e.get("conn") not in per_client:
                continue
            cmd = e["command"]
            if "keys" in e:  # a script: EVALSHA digest numkeys keys args
                argv = [cmd, "0" * 40, str(len(e["keys"]))] + e["keys"] + e.get("args", [])
            else:
                argv = [cmd] + e.get("args", [])
            per_client[e["conn"]].append(shape(argv))
    return {"A": collapse(per_client["c1"]), "B": collapse(per_client["c2"])}


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as workdir:
        try:
            real = real_sequences(sys.argv[1], workdir)
            sim = simulated_sequences(sys.argv[1], workdir)
        except Exception as e:  # noqa: BLE001 - report and exit 2
            print(f"redis_py_trace_test: cannot run: {e}")
            return 2
    if real == sim:
        for who in ("A", "B"):
            print(f"{who}: " + " | ".join(" ".join(c) for c in real[who]))
        print("redis_py_trace_test: redis-py and the Lua port send the same commands")
        return 0
    print("redis_py_trace_test: the sequences differ")
    print("redis-py:", json.dumps(real, indent=1))
    print("Lua port:", json.dumps(sim, indent=1))
    return 1


if __name__ == "__main__":
    sys.exit(main())
