// The npm client libraries' lock flows, run against one target (lockstep serve, or real
// redis-servers): node flows.mjs PORT1,PORT2,...,PORT5
//
// Prints one JSON object: each flow's observable outcomes (replies, acquired or not, the final
// counter of a contention test). run_clients.py runs this against both targets and requires
// identical outcomes, and the expected ones. Nothing here depends on timing except the
// contention tests, whose outcome (no lost update) must hold whatever the interleaving.
import Redis from 'ioredis';
import { createClient } from 'redis';
import { Mutex, Semaphore, MultiSemaphore, RedlockMutex, RedlockSemaphore } from 'redis-semaphore';
import Redlock4 from 'redlock';
import Redlock5 from 'redlock5';

const ports = process.argv[2].split(',').map(Number);
if (ports.length < 5) throw new Error('usage: node flows.mjs P1,P2,P3,P4,P5');
const out = {};
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const connections = [];
const io = (port) => {
  const c = new Redis({ port, host: '127.0.0.1', maxRetriesPerRequest: 1, enableOfflineQueue: true });
  connections.push(c);
  return c;
};

// A counter read and written back (with a pause between) by `workers` concurrent workers,
// `rounds` times each, every round inside lock()/unlock(): any lost update shows in the total.
async function contention(client, key, workers, rounds, lock, unlock) {
  await client.set(key, '0');
  const worker = async (w) => {
    for (let i = 0; i < rounds; i++) {
      const held = await lock(w, i);
      const v = Number(await client.get(key));
      await sleep(1);
      await client.set(key, String(v + 1));
      await unlock(held);
    }
  };
  await Promise.all([...Array(workers).keys()].map(worker));
  return Number(await client.get(key));
}

async function outcome(promise) {
  try {
    await promise;
    return 'ok';
  } catch (e) {
    return e.constructor.name;
  }
}

// ---- ioredis: a custom Lua mutex through defineCommand, pub/sub, MULTI ----
async function ioredisFlows() {
  const c = io(ports[0]);
  c.defineCommand('mutexAcquire', {
    numberOfKeys: 1,
    lua: "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 else return 0 end",
  });
  c.defineCommand('mutexRelease', {
    numberOfKeys: 1,
    lua: "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end",
  });
  out.ioredis_acquire = await c.mutexAcquire('io:m', 'a', 10000);
  out.ioredis_acquire_taken = await c.mutexAcquire('io:m', 'b', 10000);
  out.ioredis_release_not_owner = await c.mutexRelease('io:m', 'b');
  out.ioredis_release = await c.mutexRelease('io:m', 'a');
  out.ioredis_pttl_bounded = (await c.mutexAcquire('io:m', 'a', 10000)) === 1 && (await c.pttl('io:m')) <= 10000;

  const sub = io(ports[0]);
  const message = new Promise((resolve) => sub.on('message', (channel, m) => resolve([channel, m])));
  out.ioredis_subscribe = await sub.subscribe('io:ch');
  out.ioredis_publish = await c.publish('io:ch', 'hello');
  out.ioredis_message = await message;
  out.ioredis_multi = await c.multi().set('io:x', '1').incr('io:x').get('io:x').exec();

  out.ioredis_contention = await contention(c, 'io:counter', 4, 10,
    async (w, i) => {
      const token = `w${w}-${i}`;
      while ((await c.mutexAcquire('io:cm', token, 10000)) !== 1) await sleep(2);
      return token;
    },
    (token) => c.mutexRelease('io:cm', token));
}

// ---- node-redis with its default options ----
async function nodeRedisFlows() {
  const c = createClient({ socket: { port: ports[0], host: '127.0.0.1' } });
  c.on('error', (e) => { out.redis_error = String(e); });
  await c.connect();
  out.redis_set_nx = await c.set('nr:k', 'v', { NX: true, PX: 10000 });
  out.redis_set_nx_taken = await c.set('nr:k', 'w', { NX: true, PX: 10000 });
  out.redis_eval = await c.eval("return redis.call('get', KEYS[1])", { keys: ['nr:k'] });
  out.redis_hgetall = await (async () => { await c.hSet('nr:h', 'f', '1'); return c.hGetAll('nr:h'); })();
  const sub = c.duplicate();
  sub.on('error', (e) => { out.redis_error = String(e); });
  await sub.connect();
  const message = new Promise((resolve) => sub.subscribe('nr:ch', (m, channel) => resolve([channel, m])));
  await sleep(50);
  out.redis_publish = await c.publish('nr:ch', 'hi');
  out.redis_message = await message;
  out.redis_multi = await c.multi().set('nr:x', '1').incr('nr:x').exec();
  await sub.quit();
  out.redis_contention = await contention(c, 'nr:counter', 4, 10,
    async (w, i) => {
      const token = `w${w}-${i}`;
      while ((await c.set('nr:cm', token, { NX: true, PX: 10000 })) !== 'OK') await sleep(2);
      return token;
    },
    (token) => c.eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0",
      { keys: ['nr:cm'], arguments: [token] }));
  await c.quit();
}

// ---- redis-semaphore: Mutex, Semaphore, MultiSemaphore, RedlockMutex, RedlockSemaphore ----
async function redisSemaphoreFlows() {
  const c = io(ports[0]);
  const three = ports.slice(0, 3).map(io);
  const opts = { acquireTimeout: 5000, acquireAttemptsLimit: Infinity, lockTimeout: 10000, retryInterval: 5, refreshInterval: 0 };

  const m1 = new Mutex(c, 'rs:mutex', opts);
  const m2 = new Mutex(c, 'rs:mutex', opts);
  out.rs_mutex = [await m1.tryAcquire(), await m2.tryAcquire()];
  await m1.release();
  out.rs_mutex_after_release = await m2.tryAcquire();
  await m2.release();

  const s = [0, 1, 2].map(() => new Semaphore(c, 'rs:sem', 2, opts));
  out.rs_semaphore = [await s[0].tryAcquire(), await s[1].tryAcquire(), await s[2].tryAcquire()];
  await s[0].release();
  out.rs_semaphore_after_release = await s[2].tryAcquire();
  await s[1].release();
  await s[2].release();

  const ms = [0, 1].map(() => new MultiSemaphore(c, 'rs:multi', 3, 2, opts));
  out.rs_multisemaphore = [await ms[0].tryAcquire(), await ms[1].tryAcquire()];
  await ms[0].release();

  const rm = [0, 1].map(() => new RedlockMutex(three, 'rs:redlock', opts));
  out.rs_redlock_mutex = [await rm[0].tryAcquire(), await rm[1].tryAcquire()];
  await rm[0].release();
  out.rs_redlock_mutex_after_release = await rm[1].tryAcquire();
  await rm[1].release();

  const rs = [0, 1, 2].map(() => new RedlockSemaphore(three, 'rs:rsem', 2, opts));
  out.rs_redlock_semaphore = [await rs[0].tryAcquire(), await rs[1].tryAcquire(), await rs[2].tryAcquire()];
  await rs[0].release();
  await rs[1].release();

  out.rs_mutex_contention = await contention(c, 'rs:counter', 4, 10,
    async () => { const m = new Mutex(c, 'rs:cm', opts); await m.acquire(); return m; },
    (m) => m.release());
  out.rs_redlock_contention = await contention(c, 'rs:rcounter', 3, 5,
    async () => { const m = new RedlockMutex(three, 'rs:rcm', opts); await m.acquire(); return m; },
    (m) => m.release());
}

// ---- redlock 4.x (latest) and 5.x over 3 and 5 nodes ----
async function redlockFlows() {
  for (const n of [3, 5]) {
    const clients = ports.slice(0, n).map(io);
    const r4 = new Redlock4(clients, { retryCount: 0, driftFactor: 0.01 });
    const lock = await r4.lock(`r4:${n}`, 10000);
    out[`redlock4_${n}_taken`] = await outcome(r4.lock(`r4:${n}`, 10000));
    const extended = await lock.extend(10000);
    out[`redlock4_${n}_extend`] = extended.value === lock.value;
    await extended.unlock();
    out[`redlock4_${n}_after_unlock`] = await outcome(r4.lock(`r4:${n}`, 10000).then((l) => l.unlock()));
    const r4wait = new Redlock4(clients, { retryCount: 1000, retryDelay: 5, retryJitter: 5 });
    out[`redlock4_${n}_contention`] = await contention(clients[0], `r4:${n}:counter`, 3, 5,
      () => r4wait.lock(`r4:${n}:c`, 10000), (l) => l.unlock());

    const r5 = new Redlock5(clients, { retryCount: 0 });
    const l5 = await r5.acquire([`r5:${n}`], 10000);
    out[`redlock5_${n}_taken`] = await outcome(r5.acquire([`r5:${n}`], 10000));
    const e5 = await l5.extend(10000);
    out[`redlock5_${n}_extend`] = e5.value === l5.value;
    await e5.release();
    out[`redlock5_${n}_after_release`] = await outcome(r5.acquire([`r5:${n}`], 10000).then((l) => l.release()));
    const r5wait = new Redlock5(clients, { retryCount: 1000, retryDelay: 5, retryJitter: 5 });
    out[`redlock5_${n}_contention`] = await contention(clients[0], `r5:${n}:counter`, 3, 5,
      () => r5wait.acquire([`r5:${n}:c`], 10000), (l) => l.release());
  }
}

try {
  await ioredisFlows();
  await nodeRedisFlows();
  await redisSemaphoreFlows();
  await redlockFlows();
} catch (e) {
  out.failed = `${e.constructor.name}: ${e.message}`;
}
for (const c of connections) c.disconnect();
process.stdout.write(JSON.stringify(out, null, 1) + '\n');
