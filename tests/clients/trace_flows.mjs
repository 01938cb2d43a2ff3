// The npm locks' workload for trace_test.py: node trace_flows.mjs FLOW PORT1[,PORT2,...]
//
// FLOW is redlock5 (node-redlock 5.0.0-beta.2 over every port), mutex (redis-semaphore's Mutex
// on the first port) or redlock-mutex (redis-semaphore's RedlockMutex over every port). The workload, as the simulated scenario in trace_test.py runs it: A takes
// L; B tries once and fails; A releases; B takes L (retrying) and releases. Each client first
// sends ECHO trace-start:<name> on each of its connections, so that the trace tells whose
// connection is whose and where the workload starts.
import Redis from 'ioredis';
import { Mutex, RedlockMutex } from 'redis-semaphore';
import Redlock5 from 'redlock5';

const [flow, portList] = process.argv.slice(2);
const ports = portList.split(',').map(Number);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const connections = [];
const clientsOf = async (name, n) => {
  const cs = ports.slice(0, n).map((port) => new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1 }));
  connections.push(...cs);
  for (const c of cs) await c.echo(`trace-start:${name}`);
  return cs;
};

try {
  if (flow === 'redlock5') {
    const a = new Redlock5(await clientsOf('A', ports.length), { retryCount: 0 });
    const b = new Redlock5(await clientsOf('B', ports.length), { retryCount: 10, retryDelay: 200, retryJitter: 100 });
    const held = await a.acquire(['L'], 10000);
    let taken = false;
    try {
      await b.acquire(['L'], 10000, { retryCount: 0 });
      taken = true;
    } catch (e) {
      // ExecutionError: no quorum, as expected
    }
    if (taken) throw new Error('B took a held lock');
    const waiting = b.acquire(['L'], 10000);
    await sleep(300);
    await held.release();
    const bl = await waiting;
    await bl.release();
  } else if (flow === 'mutex') {
    const [ca] = await clientsOf('A', 1);
    const [cb] = await clientsOf('B', 1);
    const a = new Mutex(ca, 'L', { lockTimeout: 10000, retryInterval: 10 });
    const b = new Mutex(cb, 'L', { lockTimeout: 10000, retryInterval: 10 });
    await a.acquire();
    // tryAcquire tries for the whole acquireTimeout: a short one stands for try_lock(50).
    const bTry = new Mutex(cb, 'L', { lockTimeout: 10000, retryInterval: 10, acquireTimeout: 50 });
    if (await bTry.tryAcquire()) throw new Error('B took a held mutex');
    const waiting = b.acquire();
    await sleep(300);
    await a.release();
    await waiting;
    await b.release();
  } else if (flow === 'redlock-mutex') {
    const ca = await clientsOf('A', ports.length);
    const cb = await clientsOf('B', ports.length);
    const options = { lockTimeout: 10000, retryInterval: 10 };
    const a = new RedlockMutex(ca, 'L', options);
    const b = new RedlockMutex(cb, 'L', options);
    await a.acquire();
    const bTry = new RedlockMutex(cb, 'L', { ...options, acquireTimeout: 50 });
    if (await bTry.tryAcquire()) throw new Error('B took a held redlock-mutex');
    const waiting = b.acquire();
    await sleep(300);
    await a.release();
    await waiting;
    await b.release();
  } else {
    throw new Error(`unknown flow ${flow}`);
  }
} finally {
  for (const c of connections) c.disconnect();
}
