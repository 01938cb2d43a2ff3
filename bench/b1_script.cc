// Benchmark B1 (docs/performance.md): the seed's RLock acquire script, three ways, in one run.
//
//  model  — the Redis node model's EVALSHA path: Node::execute with an EVALSHA argv, one core.
//  redis  — a real redis-server 7.0 started on a free loopback port, EVALSHA pipelined 32 deep
//           through hiredis (32 appends, then 32 reads).
//  floor  — a bare Lua 5.1 VM running the same script text with redis.call stubbed to return
//           constants (exists -> 0, so the script takes its acquire branch every time) and fresh
//           KEYS/ARGV tables per call, as Redis builds them: what running the script costs with
//           no data structure behind it.
// All three use the same pre-generated arguments: lock names drawn from a seeded lockstep::Rng
// (100,000 names) and 8 owner ids, so the model and Redis see a mix of first acquisitions,
// re-entries and contended attempts. The three are interleaved (one run of each per repeat);
// each figure is the median of `repeats` runs, each ratio the median of the per-repeat ratios.
// Targets: model >= 4x redis, and floor <= 2x model.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "bench/bench.h"
#include "bench/bench_util.h"
#include "sim/core/assert.h"
#include "sim/core/rng.h"
#include "tests/differential/redis_client.h"
#include "tests/differential/redis_process.h"
#include "sim/redis/node.h"
#include "tests/differential/seed_scripts.h"

namespace lockstep::bench {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::string_view kScript = differential::kRlockAcquire;
constexpr uint64_t kSeed = 20260101;
// Distinct lock names: the primary figure uses many (a large, cache-unfriendly keyspace, as
// random names give); a second run with few names shows how much of the cost is memory.
constexpr uint64_t kLockNames = 100'000;
constexpr uint64_t kLockNamesSmall = 1'000;
constexpr uint64_t kOwners = 8;
constexpr size_t kPipelineDepth = 32;

struct Args {
  std::vector<std::string> names;
  std::vector<std::string> owners;
};

Args make_args(size_t count, uint64_t lock_names) {
  Rng rng = Rng(kSeed).stream("b1-lock-names");
  Args a;
  for (size_t i = 0; i < count; i++) {
    a.names.push_back("lock:" + std::to_string(rng.below(lock_names)));
    a.owners.push_back("8a9649f5-f5b5-48b4-beaa-d0c24855f9ab:" + std::to_string(rng.below(kOwners)));
  }
  return a;
}

double ops_per_s(size_t ops, Clock::duration elapsed) {
  const double s = std::chrono::duration<double>(elapsed).count();
  return s > 0 ? static_cast<double>(ops) / s : 0.0;
}

// --- floor: bare Lua with redis.call stubbed --------------------------------------------------

int stub_call(lua_State* L) {
  const char* cmd = luaL_checkstring(L, 1);
  // The acquire script's commands: exists -> 0 (free lock), hexists -> 0, others succeed.
  if (std::string_view(cmd) == "pttl") {
    lua_pushinteger(L, 30000);
  } else {
    lua_pushinteger(L, std::string_view(cmd) == "exists" || std::string_view(cmd) == "hexists" ? 0 : 1);
  }
  return 1;
}

void set_array(lua_State* L, const char* global, std::initializer_list<std::string_view> items) {
  lua_createtable(L, static_cast<int>(items.size()), 0);
  int i = 1;
  for (std::string_view s : items) {
    lua_pushlstring(L, s.data(), s.size());
    lua_rawseti(L, -2, i++);
  }
  lua_setglobal(L, global);
}

double run_floor(const Args& a, size_t ops) {
  lua_State* L = luaL_newstate();
  luaL_openlibs(L);
  lua_newtable(L);
  lua_pushcfunction(L, stub_call);
  lua_setfield(L, -2, "call");
  lua_setglobal(L, "redis");
  LS_ASSERT(luaL_loadbuffer(L, kScript.data(), kScript.size(), "@user_script") == 0);
  const int fn = luaL_ref(L, LUA_REGISTRYINDEX);
  const auto start = Clock::now();
  for (size_t i = 0; i < ops; i++) {
    const size_t k = i % a.names.size();
    set_array(L, "KEYS", {a.names[k]});
    set_array(L, "ARGV", {"30000", a.owners[k]});
    lua_rawgeti(L, LUA_REGISTRYINDEX, fn);
    LS_ASSERT(lua_pcall(L, 0, 1, 0) == 0);
    lua_pop(L, 1);
  }
  const auto elapsed = Clock::now() - start;
  lua_close(L);
  return ops_per_s(ops, elapsed);
}

// --- redis: real redis-server, pipelined EVALSHA ----------------------------------------------

struct RedisRun {
  double ops_per_s = 0;
  std::string error;
};

RedisRun run_redis(differential::RedisClient& c, const std::string& sha, const Args& a, size_t ops) {
  RedisRun out;
  if (!c.command({"FLUSHALL"}).ok()) return {0, "FLUSHALL failed"};
  const auto start = Clock::now();
  for (size_t done = 0; done < ops; done += kPipelineDepth) {
    const size_t batch = std::min(kPipelineDepth, ops - done);
    for (size_t j = 0; j < batch; j++) {
      const size_t k = (done + j) % a.names.size();
      std::string_view argv[] = {"EVALSHA", sha, "1", a.names[k], "30000", a.owners[k]};
      c.append(argv);
    }
    for (size_t j = 0; j < batch; j++) {
      auto r = c.read_reply();
      if (!r.ok() || r.value().is_error()) {
        return {0, r.ok() ? describe(r.value()) : r.status().message()};
      }
    }
  }
  out.ops_per_s = ops_per_s(ops, Clock::now() - start);
  return out;
}

// --- model: Node::execute with EVALSHA --------------------------------------------------------

double run_model(const Args& a, size_t ops, std::string* error) {
  // A clock that advances 1 us per reading: cheap, deterministic, and keys never expire.
  int64_t now_us = 1'700'000'000'000'000;
  redis::NodeConfig config;
  config.clock_us = [&now_us] { return now_us++; };
  redis::Node node(std::move(config));
  const redis::ConnectionId id = node.connect();
  std::string_view load[] = {"SCRIPT", "LOAD", kScript};
  const redis::Reply sha = node.execute_one(id, load);
  if (sha.type != redis::Reply::Type::kBulk) {
    *error = "SCRIPT LOAD on the model: " + describe(sha);
    return 0;
  }
  std::vector<redis::Reply> out;
  const auto start = Clock::now();
  for (size_t i = 0; i < ops; i++) {
    const size_t k = i % a.names.size();
    std::string_view argv[] = {"EVALSHA", sha.str, "1", a.names[k], "30000", a.owners[k]};
    out.clear();
    node.execute(id, argv, out);
  }
  const auto elapsed = Clock::now() - start;
  if (out.empty() || out.back().is_error()) {
    *error = "EVALSHA on the model: " + (out.empty() ? std::string("no reply") : describe(out.back()));
    return 0;
  }
  return ops_per_s(ops, elapsed);
}

struct Measured {
  nlohmann::json results;
  bool met = false;
};

// One full B1 measurement over `lock_names` distinct names.
Measured measure(const BenchOptions& options, uint64_t lock_names, nlohmann::json& errors) {
  const int repeats = std::max(1, options.repeats);
  // The same number of script runs for the model and the floor, so both see the same amount of
  // Lua garbage per run; Redis gets fewer (it is slower and the client shares the 2 cores).
  const size_t model_ops = options.quick ? 2'000 : 300'000;
  const size_t floor_ops = model_ops;
  const size_t redis_ops = options.quick ? 2'000 : 200'000;
  const Args args = make_args(options.quick ? 2'000 : 1u << 18, lock_names);
  std::unique_ptr<differential::RedisProcess> server;
  std::unique_ptr<differential::RedisClient> client;
  std::string sha;
  if (auto started = differential::RedisProcess::start(); !started.ok()) {
    errors.push_back("redis: " + started.status().message());
  } else {
    server = std::move(started.value());
    auto connected = differential::RedisClient::connect(server->port());
    auto loaded = connected.ok() ? connected.value()->command({"SCRIPT", "LOAD", kScript})
                                 : Result<redis::Reply>(connected.status());
    if (!loaded.ok() || loaded.value().type != redis::Reply::Type::kBulk) {
      errors.push_back("redis: cannot load the script");
    } else {
      client = std::move(connected.value());
      sha = loaded.value().str;
    }
  }

  // The three are interleaved, one run of each per repeat, so that a change in machine load
  // (2 shared cores) hits all three alike; ratios are also taken per repeat.
  std::vector<double> floor_v, redis_v, model_v, over_redis_v, floor_over_model_v;
  for (int r = 0; r < repeats; r++) {
    floor_v.push_back(run_floor(args, floor_ops));
    double redis_now = 0;
    if (client) {
      RedisRun run = run_redis(*client, sha, args, redis_ops);
      if (!run.error.empty()) {
        errors.push_back("redis: " + run.error);
        client.reset();
      } else {
        redis_now = run.ops_per_s;
        redis_v.push_back(redis_now);
      }
    }
    std::string error;
    const double model_now = run_model(args, model_ops, &error);
    if (!error.empty()) {
      errors.push_back("model: " + error);
      break;
    }
    model_v.push_back(model_now);
    floor_over_model_v.push_back(floor_v.back() / model_now);
    if (redis_now > 0) over_redis_v.push_back(model_now / redis_now);
  }

  nlohmann::json results = {{"lock_names", lock_names},
                            {"floor_ops_per_s", median(floor_v)},
                            {"ops_per_run", {{"model", model_ops}, {"redis", redis_ops}, {"floor", floor_ops}}},
                            {"pipeline_depth", kPipelineDepth},
                            {"repeats", repeats}};
  results["redis_ops_per_s"] = redis_v.empty() ? nlohmann::json() : nlohmann::json(median(redis_v));
  results["model_ops_per_s"] = model_v.empty() ? nlohmann::json() : nlohmann::json(median(model_v));
  bool met = false;
  if (!over_redis_v.empty() && !floor_over_model_v.empty()) {
    const double over_redis = median(over_redis_v);
    const double floor_over_model = median(floor_over_model_v);
    results["model_over_redis"] = over_redis;
    results["floor_over_model"] = floor_over_model;
    met = over_redis >= 4.0 && floor_over_model <= 2.0;
  }
  return {results, met};
}

}  // namespace

nlohmann::json run_b1_script(const BenchOptions& options) {
  nlohmann::json errors = nlohmann::json::array();
  const Measured primary = measure(options, kLockNames, errors);
  const Measured small = measure(options, kLockNamesSmall, errors);
  nlohmann::json out = {
      {"id", "B1"},
      {"what", "seed 001 RLock acquire script: model EVALSHA vs redis-server 7.0 pipelined EVALSHA "
               "(depth 32) vs bare Lua 5.1 with redis.call stubbed"},
      {"results", primary.results},
      {"results_small_keyspace", small.results},
      {"target", {{"model_over_redis_min", 4.0}, {"floor_over_model_max", 2.0}}},
      {"met", primary.met},
      {"met_small_keyspace", small.met},
      {"quick", options.quick},
      {"machine", machine()}};
  if (!errors.empty()) out["errors"] = errors;
  return out;
}

}  // namespace lockstep::bench
