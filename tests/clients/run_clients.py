#!/usr/bin/python3
"""Real client libraries' lock flows against `lockstep serve` and against real redis-servers.

Usage: run_clients.py LOCKSTEP_BINARY [--only py|npm]

Starts `lockstep serve --nodes 5` and five redis-servers (Debian's, no persistence) on free
loopback ports, runs every flow against each target — redis-py's (Debian's python3-redis: Lock,
pipelines and WATCH, pub/sub, redis.asyncio) here, and the npm libraries' (flows.mjs: ioredis,
node-redis with default options, redis-semaphore, redlock 4 and 5 over 3 and 5 nodes) with
node — and requires the same outcomes from both, and the expected ones. Exit 0 when all match;
1 with the differing outcomes; 2 when something cannot start. Every server is stopped at the
end, also on error.
"""
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

import redis
import redis.asyncio
from redis.exceptions import LockError, LockNotOwnedError

HERE = os.path.dirname(os.path.abspath(__file__))
NODES = 5


def free_port_block(n):
    """A base port with n consecutive free ports after it (serve --nodes takes P..P+n-1)."""
    for _ in range(200):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            base = s.getsockname()[1]
        if base + n >= 65535:
            continue
        ok = True
        for p in range(base, base + n):
            with socket.socket() as t:
                try:
                    t.bind(("127.0.0.1", p))
                except OSError:
                    ok = False
                    break
        if ok:
            return base
    raise RuntimeError("no block of free ports")


def wait_ready(port, timeout_s=10.0):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if redis.Redis(port=port, socket_timeout=1).ping():
                return
        except redis.exceptions.ConnectionError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing answers PING on port {port}")


# ---- redis-py flows ---------------------------------------------------------------------------


def contention(client, key, make_lock, workers=4, rounds=10):
    """A counter read and written back under a lock by concurrent threads: no lost update."""
    client.set(key, 0)

    def worker():
        for _ in range(rounds):
            lock = make_lock()
            assert lock.acquire(blocking=True, blocking_timeout=20)
            v = int(client.get(key))
            time.sleep(0.001)
            client.set(key, v + 1)
            lock.release()

    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return int(client.get(key))


def outcome(fn):
    try:
        result = fn()
        return result if result is not None else "ok"
    except Exception as e:  # the exception's class is the outcome
        return type(e).__name__


def redis_py_flows(port):
    out = {}
    r = redis.Redis(port=port, decode_responses=True)
    a = r.lock("py:lock", timeout=10)
    b = r.lock("py:lock", timeout=10)
    out["lock_acquire"] = a.acquire(blocking=False)
    out["lock_taken"] = b.acquire(blocking=False)
    out["lock_locked_owned"] = [a.locked(), a.owned(), b.owned()]
    out["lock_extend"] = a.extend(5)
    out["lock_ttl_extended"] = 10 < r.pttl("py:lock") / 1000 <= 15
    out["lock_extend_replace"] = a.extend(3, replace_ttl=True)
    out["lock_ttl_replaced"] = r.pttl("py:lock") <= 3000
    out["lock_reacquire"] = a.reacquire()
    out["lock_release_unheld"] = outcome(b.release)  # refused locally: b holds no token
    # Refused by the server's script: a token that is not the owner's.
    b.local.token = b"not-the-token"
    out["lock_release_not_owner"] = outcome(b.release)
    b.local.token = b"not-the-token"
    out["lock_extend_not_owner"] = outcome(lambda: b.extend(1))
    out["lock_release"] = outcome(a.release)
    out["lock_release_twice"] = outcome(a.release)
    out["lock_locked_after"] = a.locked()
    # Expiry: a lease that runs out lets another client in; the first one's release then fails.
    e1 = r.lock("py:exp", timeout=0.2)
    e2 = r.lock("py:exp", timeout=5)
    out["lock_expiry"] = [e1.acquire(blocking=False), e2.acquire(blocking=False)]
    time.sleep(0.4)
    out["lock_after_expiry"] = [e2.acquire(blocking=False), outcome(e1.release), outcome(e2.release)]
    # A blocking acquire that gives up.
    w1 = r.lock("py:wait", timeout=10)
    w1.acquire()
    out["lock_blocking_timeout"] = r.lock("py:wait", blocking_timeout=0.1).acquire()
    w1.release()
    # Pipelines: a transaction, and optimistic locking with WATCH.
    with r.pipeline() as p:
        out["pipeline_transaction"] = p.set("py:x", 1).incr("py:x").get("py:x").execute()
    with r.pipeline() as p:
        p.watch("py:x")
        r.set("py:x", 5)  # another client's write
        p.multi()
        p.incr("py:x")
        out["watch_conflict"] = outcome(p.execute)
    with r.pipeline() as p:
        p.watch("py:x")
        p.multi()
        p.incr("py:x")
        out["watch_ok"] = p.execute()
    # Pub/sub.
    ps = r.pubsub()
    ps.subscribe("py:ch")
    first = ps.get_message(timeout=1)
    out["pubsub_subscribed"] = [first["type"], first["channel"], first["data"]]
    out["pubsub_publish"] = r.publish("py:ch", "hello")
    msg = ps.get_message(timeout=2)
    out["pubsub_message"] = [msg["type"], msg["channel"], msg["data"]] if msg else None
    ps.close()
    # redis.asyncio.
    out["asyncio"] = asyncio.run(asyncio_flow(port))
    out["lock_contention"] = contention(r, "py:counter", lambda: r.lock("py:cl", timeout=10, sleep=0.002))
    r.close()
    return out


async def asyncio_flow(port):
    r = redis.asyncio.Redis(port=port, decode_responses=True)
    a = r.lock("pya:lock", timeout=10)
    b = r.lock("pya:lock", timeout=10)
    got = [await a.acquire(blocking=False), await b.acquire(blocking=False)]
    await a.release()
    got.append(await b.acquire(blocking=False))
    await b.release()

    async def worker():
        for _ in range(10):
            async with r.lock("pya:cl", timeout=10, sleep=0.002, blocking_timeout=20):
                v = int(await r.get("pya:counter"))
                await asyncio.sleep(0.001)
                await r.set("pya:counter", v + 1)

    await r.set("pya:counter", 0)
    await asyncio.gather(*(worker() for _ in range(4)))
    got.append(int(await r.get("pya:counter")))
    await r.close()
    return got


EXPECTED_PY = {
    "lock_acquire": True, "lock_taken": False, "lock_locked_owned": [True, True, False],
    "lock_extend": True, "lock_ttl_extended": True, "lock_extend_replace": True,
    "lock_ttl_replaced": True, "lock_reacquire": True,
    "lock_release_unheld": "LockError", "lock_release_not_owner": "LockNotOwnedError",
    "lock_extend_not_owner": "LockNotOwnedError", "lock_release": "ok", "lock_release_twice": "LockError", "lock_locked_after": False,
    "lock_expiry": [True, False], "lock_after_expiry": [True, "LockNotOwnedError", "ok"],
    "lock_blocking_timeout": False, "pipeline_transaction": [True, 2, "2"],
    "watch_conflict": "WatchError", "watch_ok": [6],
    "pubsub_subscribed": ["subscribe", "py:ch", 1], "pubsub_publish": 1,
    "pubsub_message": ["message", "py:ch", "hello"], "asyncio": [True, False, True, 40],
    "lock_contention": 40,
}

EXPECTED_NPM = {
    "ioredis_acquire": 1, "ioredis_acquire_taken": 0, "ioredis_release_not_owner": 0,
    "ioredis_release": 1, "ioredis_pttl_bounded": True, "ioredis_subscribe": 1,
    "ioredis_publish": 1, "ioredis_message": ["io:ch", "hello"],
    "ioredis_multi": [[None, "OK"], [None, 2], [None, "2"]], "ioredis_contention": 40,
    "redis_set_nx": "OK", "redis_set_nx_taken": None, "redis_eval": "v",
    "redis_hgetall": {"f": "1"}, "redis_publish": 1, "redis_message": ["nr:ch", "hi"],
    "redis_multi": ["OK", 2], "redis_contention": 40,
    "rs_mutex": [True, False], "rs_mutex_after_release": True,
    "rs_semaphore": [True, True, False], "rs_semaphore_after_release": True,
    "rs_multisemaphore": [True, False], "rs_redlock_mutex": [True, False],
    "rs_redlock_mutex_after_release": True, "rs_redlock_semaphore": [True, True, False],
    "rs_mutex_contention": 40, "rs_redlock_contention": 15,
}
for n in (3, 5):
    EXPECTED_NPM.update({
        f"redlock4_{n}_taken": "LockError", f"redlock4_{n}_extend": True,
        f"redlock4_{n}_after_unlock": "ok", f"redlock4_{n}_contention": 15,
        f"redlock5_{n}_taken": "ExecutionError", f"redlock5_{n}_extend": True,
        f"redlock5_{n}_after_release": "ok", f"redlock5_{n}_contention": 15,
    })


def npm_flows(ports):
    node = shutil.which("node")
    if node is None:
        raise RuntimeError("node is not installed (.ci/install-deps installs it)")
    if not os.path.isdir(os.path.join(HERE, "node_modules")):
        raise RuntimeError(f"{HERE}/node_modules is missing: run `npm ci` there (.ci/install-deps does)")
    done = subprocess.run([node, os.path.join(HERE, "flows.mjs"), ",".join(map(str, ports))],
                          cwd=HERE, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"flows.mjs exited {done.returncode}: {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def compare(label, expected, got_serve, got_redis):
    failures = []
    for key in sorted(set(expected) | set(got_serve) | set(got_redis)):
        want = expected.get(key, "<not expected>")
        s, r = got_serve.get(key, "<missing>"), got_redis.get(key, "<missing>")
        if s != r or s != want:
            failures.append(f"  {label} {key}: serve {json.dumps(s)}, redis-server {json.dumps(r)}, "
                            f"expected {json.dumps(want)}")
    return failures


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    lockstep = sys.argv[1]
    only = sys.argv[3] if len(sys.argv) > 3 and sys.argv[2] == "--only" else None
    procs = []
    tmp = tempfile.mkdtemp(prefix="lockstep-clients-")
    try:
        serve_base = free_port_block(NODES)
        procs.append(subprocess.Popen([lockstep, "serve", "--port", str(serve_base), "--nodes", str(NODES)],
                                      stdout=subprocess.DEVNULL, stderr=open(os.path.join(tmp, "serve.log"), "w")))
        serve_ports = list(range(serve_base, serve_base + NODES))
        redis_ports = []
        for i in range(NODES):
            port = free_port_block(1)
            procs.append(subprocess.Popen(
                ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                 "--dir", tmp, "--logfile", os.path.join(tmp, f"redis{i}.log")]))
            redis_ports.append(port)
        for p in serve_ports + redis_ports:
            wait_ready(p)
        failures = []
        if only in (None, "py"):
            failures += compare("redis-py", EXPECTED_PY, redis_py_flows(serve_ports[0]), redis_py_flows(redis_ports[0]))
        if only in (None, "npm"):
            failures += compare("npm", EXPECTED_NPM, npm_flows(serve_ports), npm_flows(redis_ports))
        if failures:
            print("client flows differ:\n" + "\n".join(failures))
            return 1
        print(f"client flows: {len(EXPECTED_PY) if only != 'npm' else 0} redis-py and "
              f"{len(EXPECTED_NPM) if only != 'py' else 0} npm outcomes identical on lockstep serve and redis-server")
        return 0
    except (RuntimeError, OSError, subprocess.TimeoutExpired, redis.exceptions.RedisError) as e:
        print(f"run_clients: {e}", file=sys.stderr)
        return 2
    finally:
        for p in procs:
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for p in procs:
            try:
                p.wait(timeout=5)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
