// The client side of a Lua algorithm: its sandbox, the `lockstep` table and the driver that turns
// each Lua coroutine's waits into awaits on the Runtime (docs/lua-algorithms.md).
//
// A waiting function of the `lockstep` table (call, eval, sleep, ...) records what the coroutine
// waits for in Host::pending and yields. The C++ coroutine driving that Lua coroutine (drive())
// takes the request, awaits it on the Runtime and resumes the Lua coroutine with its results.
// Nothing else ever resumes these coroutines: the `coroutine` library is not in the sandbox, and
// its pcall is written over coroutines so that a wait inside pcall still reaches the driver.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "algorithms/algorithm.h"
#include "algorithms/lua_client/lua_algorithm.h"
#include "algorithms/lua_client/lua_internal.h"
#include "sim/core/det_arena.h"
#include "sim/core/lua_tostring.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::lua_client {

const Script* Definition::script(std::string_view name) const {
  for (const Script& s : scripts) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

namespace {

constexpr int kHookPeriod = 1000;  // instructions between two budget checks
constexpr int kMaxReplyDepth = 1000;
constexpr const char* kTimeoutText = "timeout";
constexpr const char* kSemaphoreMeta = "lockstep.semaphore";

enum class Wait : uint8_t { kNone, kCall, kEval, kEvalSha, kSleep, kSubscribe, kUnsubscribe, kSemaphore };

// What a yielded coroutine waits for.
struct Pending {
  Wait wait = Wait::kNone;
  size_t endpoint = 0;
  std::vector<std::string> argv;   // kCall; kSubscribe, kUnsubscribe: {channel}
  const Script* script = nullptr;  // kEval, kEvalSha
  std::vector<std::string> keys;
  std::vector<std::string> args;
  CallOptions call;
  int64_t ms = 0;  // kSleep; kSemaphore: the timeout
  Semaphore* semaphore = nullptr;
  int anchor = LUA_NOREF;  // kSemaphore: keeps the semaphore's userdata alive during the wait
  MessageListener* listener = nullptr;
};

class Host;

// A pub/sub subscription's handler: a Lua function run (it must not wait) for each message.
class Listener : public MessageListener {
 public:
  Listener(Host& host, int handler) : handler_(handler), host_(host) {}
  void on_message(std::string_view channel, std::string_view message) override;
  int handler_;  // the handler's registry slot

 private:
  Host& host_;
};

// One client process's Lua side: its Lua state, the module its file returned, and what the
// `lockstep` table's functions share.
class Host {
 public:
  Host(std::shared_ptr<const Definition> def, Runtime* rt, const nlohmann::json& options);
  ~Host();
  Host(const Host&) = delete;
  Host& operator=(const Host&) = delete;

  // Runs the file; its returned value is left on top of the main stack. Errors name the file.
  Status load();
  // Runs `co` (its function and `nargs` arguments pushed) to its end. Returns how many values it
  // returned (on co's stack), or -1 after reporting a failure through Runtime::fail.
  Task<int> drive(lua_State* co, int nargs);
  // The failure of `co` (a Lua error, the budget, the memory limit), named by file and line.
  std::string failure(lua_State* co, int status);
  void fail(const std::string& message);
  // A new coroutine running the module's function `name`, anchored in the registry (*ref).
  lua_State* new_coroutine(const char* name, int* ref);

  // Runs a message handler (on the main state; it must not wait).
  void run_handler(int handler, std::string_view channel, std::string_view message);

  const std::shared_ptr<const Definition> def;
  Runtime* const rt;  // null while a declaration is read
  // The Lua state's memory: addresses that replay, so that `pairs` over keys that are tables or
  // functions visits them in the same order in every run (sim/core/det_arena.h).
  DetArena arena;
  lua_State* L = nullptr;
  const nlohmann::json options;
  Pending pending;
  uint64_t used = 0;          // instructions in the current stretch
  size_t memory = 0;          // bytes the Lua state holds
  // The memory limit holds only inside protected calls (lua_resume, lua_pcall): an allocation
  // that fails outside them (a push, a registry slot, a GC step) would be a panic.
  bool limited = false;
  std::string fatal;          // a budget or memory failure: pcall does not catch it
  int module_ref = LUA_NOREF;
  std::map<uint32_t, const Thread*> threads;  // by index: those the workload called with
  std::map<int64_t, TaskId> tasks;           // background tasks by the id Lua sees
  int64_t next_task = 0;
  std::map<std::pair<size_t, std::string>, std::unique_ptr<Listener>> listeners;
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);

 private:
  Task<int> serve(lua_State* co, Pending p);
};

// ---- Helpers for the `lockstep` functions ---------------------------------------------------

Host& host_of(lua_State* L) { return *static_cast<Host*>(lua_touserdata(L, lua_upvalueindex(1))); }

// The client, or a Lua error when the file is only being loaded.
Runtime& client(lua_State* L, const char* fn) {
  Host& h = host_of(L);
  if (h.rt == nullptr) luaL_error(L, "lockstep.%s: only a running client can call it, not the file's top level", fn);
  return *h.rt;
}

// A waiting function may only run inside the driver's coroutines.
Host& waiting(lua_State* L, const char* fn) {
  client(L, fn);
  const bool main = lua_pushthread(L) == 1;
  lua_pop(L, 1);
  if (main) luaL_error(L, "lockstep.%s waits, and a message handler must not wait", fn);
  return host_of(L);
}

// A value the algorithm gave, as an error message quotes it: its first 80 bytes, then how long
// it was (a 1 MB coverage name made a 1 MB line).
std::string excerpt(std::string_view value) {
  constexpr size_t kShown = 80;
  if (value.size() <= kShown) return std::string(value);
  return std::string(value.substr(0, kShown)) + "... (" + std::to_string(value.size()) + " bytes)";
}

int64_t integer_arg(lua_State* L, int idx, const char* fn, const char* what, int64_t min, int64_t max) {
  if (lua_type(L, idx) != LUA_TNUMBER) {
    luaL_error(L, "lockstep.%s: %s: expected an integer, found %s", fn, what, luaL_typename(L, idx));
  }
  const double d = lua_tonumber(L, idx);
  if (!(d == std::floor(d)) || d < static_cast<double>(min) || d > static_cast<double>(max)) {
    // Lua's own formatting knows no %lld: the bounds are written here.
    const std::string range = "[" + std::to_string(min) + ", " + std::to_string(max) + "]";
    luaL_error(L, "lockstep.%s: %s: expected an integer in %s, found %s", fn, what, range.c_str(), lua_tostring(L, idx));
  }
  return static_cast<int64_t>(d);
}

// A string or a number, as a command argument (integers exactly, other numbers as %.17g).
std::string arg_text(lua_State* L, int idx, const char* fn, const char* what) {
  if (lua_type(L, idx) == LUA_TNUMBER) {
    const double d = lua_tonumber(L, idx);
    char buf[64];
    if (d == std::floor(d) && std::fabs(d) < 9.007199254740992e15) {
      std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(d));
    } else {
      std::snprintf(buf, sizeof buf, "%.17g", d);
    }
    return buf;
  }
  if (lua_type(L, idx) != LUA_TSTRING) {
    luaL_error(L, "lockstep.%s: %s: expected a string or a number, found %s", fn, what, luaL_typename(L, idx));
  }
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  return std::string(s, len);
}

// An array of strings or numbers.
std::vector<std::string> string_list(lua_State* L, int idx, const char* fn, const char* what) {
  if (lua_type(L, idx) != LUA_TTABLE) {
    luaL_error(L, "lockstep.%s: %s: expected a table of strings, found %s", fn, what, luaL_typename(L, idx));
  }
  std::vector<std::string> out;
  const size_t n = lua_objlen(L, idx);
  out.reserve(n);
  for (size_t i = 1; i <= n; ++i) {
    lua_rawgeti(L, idx, static_cast<int>(i));
    const std::string where = std::string(what) + "[" + std::to_string(i) + "]";
    out.push_back(arg_text(L, -1, fn, where.c_str()));
    lua_pop(L, 1);
  }
  return out;
}

// A 1-based endpoint, as Lua counts, into Runtime's 0-based one.
size_t endpoint_arg(lua_State* L, int idx, const char* fn) {
  Runtime& rt = client(L, fn);
  if (lua_isnoneornil(L, idx)) return 0;
  return static_cast<size_t>(integer_arg(L, idx, fn, "endpoint", 1, static_cast<int64_t>(rt.endpoints())) - 1);
}

// The options table of call/eval/evalsha: endpoint, op, timeout_ms, retry_attempts,
// retry_interval_ms, state_keys, script, own_connection.
void call_options(lua_State* L, int idx, const char* fn, Pending& p) {
  if (lua_isnoneornil(L, idx)) return;
  if (lua_type(L, idx) != LUA_TTABLE) {
    luaL_error(L, "lockstep.%s: options: expected a table, found %s", fn, luaL_typename(L, idx));
  }
  lua_pushnil(L);
  while (lua_next(L, idx) != 0) {
    const std::string key = lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "";
    const int v = lua_gettop(L);
    if (key == "endpoint") {
      p.endpoint = endpoint_arg(L, v, fn);
    } else if (key == "op") {
      p.call.op = integer_arg(L, v, fn, "options.op", 0, INT64_MAX / 2);
    } else if (key == "timeout_ms") {
      p.call.timeout_ms = integer_arg(L, v, fn, "options.timeout_ms", 1, 86'400'000);
    } else if (key == "retry_attempts") {
      p.call.retry_attempts = static_cast<int32_t>(integer_arg(L, v, fn, "options.retry_attempts", 0, 100));
    } else if (key == "retry_interval_ms") {
      p.call.retry_interval_ms = integer_arg(L, v, fn, "options.retry_interval_ms", 0, 86'400'000);
    } else if (key == "state_keys") {
      p.call.state_keys = string_list(L, v, fn, "options.state_keys");
    } else if (key == "script") {
      // A hand-made EVALSHA names its script for the history, as eval/evalsha do.
      const Script* script = host_of(L).def->script(arg_text(L, v, fn, "options.script"));
      if (script == nullptr) luaL_error(L, "lockstep.%s: options.script: not one of the declared scripts", fn);
      p.call.script = script->name;
    } else if (key == "own_connection") {
      if (!lua_isboolean(L, v)) luaL_error(L, "lockstep.%s: options.own_connection: expected true or false", fn);
      p.call.own_connection = lua_toboolean(L, v) != 0;
    } else {
      luaL_error(L, "lockstep.%s: options: unknown field '%s' (expected endpoint, op, timeout_ms, "
                 "retry_attempts, retry_interval_ms, state_keys, script, own_connection)", fn, key.empty() ? "?" : excerpt(key).c_str());
    }
    lua_pop(L, 1);
  }
}

const Thread& thread_arg(lua_State* L, int idx, const char* fn) {
  Host& h = host_of(L);
  if (lua_type(L, idx) != LUA_TTABLE) {
    luaL_error(L, "lockstep.%s: thread: expected the thread table acquire/release were given, found %s", fn,
               luaL_typename(L, idx));
  }
  lua_getfield(L, idx, "index");
  const int64_t index = lua_type(L, -1) == LUA_TNUMBER ? static_cast<int64_t>(lua_tonumber(L, -1)) : -1;
  lua_pop(L, 1);
  auto it = h.threads.find(static_cast<uint32_t>(index));
  if (index < 0 || it == h.threads.end()) {
    luaL_error(L, "lockstep.%s: thread: not a thread of this client (pass the table acquire/release were given)", fn);
  }
  return *it->second;
}

history::LockMode mode_arg(lua_State* L, int idx, const char* fn) {
  if (lua_isnoneornil(L, idx)) return history::LockMode::kExclusive;
  const std::string m = arg_text(L, idx, fn, "mode");
  for (auto mode : {history::LockMode::kExclusive, history::LockMode::kRead, history::LockMode::kWrite}) {
    if (m == history::to_string(mode)) return mode;
  }
  luaL_error(L, "lockstep.%s: mode: expected exclusive, read or write, found '%s'", fn, excerpt(m).c_str());
  return history::LockMode::kExclusive;
}

// A reply as Redis hands replies to scripts in RESP2 (status: {ok=...}, nil: false, ...). An
// error reply inside an array becomes {err=...}; at the top, call() returns nil and its text.
void push_reply(lua_State* L, const Reply& r, int depth) {
  luaL_checkstack(L, 4, "reply too deep");
  switch (r.type) {
    case Reply::Type::kStatus:
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, r.str.data(), r.str.size());
      lua_setfield(L, -2, "ok");
      return;
    case Reply::Type::kError:
      lua_createtable(L, 0, 1);
      lua_pushlstring(L, r.str.data(), r.str.size());
      lua_setfield(L, -2, "err");
      return;
    case Reply::Type::kInteger:
    case Reply::Type::kBool:
      lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      return;
    case Reply::Type::kNil:
    case Reply::Type::kNilArray:
      lua_pushboolean(L, 0);
      return;
    case Reply::Type::kBulk:
    case Reply::Type::kDouble:
    case Reply::Type::kVerbatim:
    case Reply::Type::kBigNumber: {
      std::string_view text = r.str;
      if (r.type == Reply::Type::kVerbatim && text.size() >= 4) text.remove_prefix(4);
      lua_pushlstring(L, text.data(), text.size());
      return;
    }
    case Reply::Type::kArray:
    case Reply::Type::kMap:
    case Reply::Type::kSet:
    case Reply::Type::kPush:
      lua_createtable(L, static_cast<int>(r.elements.size()), 0);
      if (depth >= kMaxReplyDepth) return;  // deeper levels are left empty
      for (size_t i = 0; i < r.elements.size(); ++i) {
        push_reply(L, r.elements[i], depth + 1);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      return;
  }
}

// ---- The `lockstep` functions ---------------------------------------------------------------

int api_call(lua_State* L) {
  Host& h = waiting(L, "call");
  Pending p;
  p.wait = Wait::kCall;
  p.argv = string_list(L, 1, "call", "argv");
  if (p.argv.empty()) luaL_error(L, "lockstep.call: argv: expected at least the command name");
  call_options(L, 2, "call", p);
  h.pending = std::move(p);
  return lua_yield(L, 0);
}

int script_wait(lua_State* L, const char* fn, Wait wait) {
  Host& h = waiting(L, fn);
  Pending p;
  p.wait = wait;
  const std::string name = arg_text(L, 1, fn, "script");
  p.script = h.def->script(name);
  if (p.script == nullptr) {
    luaL_error(L, "lockstep.%s: no script named '%s' (the file's `scripts` declares them)", fn, excerpt(name).c_str());
  }
  p.keys = lua_isnoneornil(L, 2) ? std::vector<std::string>{} : string_list(L, 2, fn, "keys");
  p.args = lua_isnoneornil(L, 3) ? std::vector<std::string>{} : string_list(L, 3, fn, "args");
  call_options(L, 4, fn, p);
  p.call.script = p.script->name;
  h.pending = std::move(p);
  return lua_yield(L, 0);
}
int api_eval(lua_State* L) { return script_wait(L, "eval", Wait::kEval); }
int api_evalsha(lua_State* L) { return script_wait(L, "evalsha", Wait::kEvalSha); }

int api_sleep(lua_State* L) {
  Host& h = waiting(L, "sleep");
  Pending p;
  p.wait = Wait::kSleep;
  p.ms = integer_arg(L, 1, "sleep", "ms", 0, int64_t{1} << 50);
  h.pending = std::move(p);
  return lua_yield(L, 0);
}

int subscription(lua_State* L, const char* fn, Wait wait) {
  Host& h = waiting(L, fn);
  Pending p;
  p.wait = wait;
  p.argv = {arg_text(L, 1, fn, "channel")};
  const int endpoint_idx = wait == Wait::kSubscribe ? 3 : 2;
  p.endpoint = endpoint_arg(L, endpoint_idx, fn);
  if (wait == Wait::kSubscribe) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    auto key = std::make_pair(p.endpoint, p.argv[0]);
    auto it = h.listeners.find(key);
    lua_pushvalue(L, 2);
    const int handler = luaL_ref(L, LUA_REGISTRYINDEX);
    if (it == h.listeners.end()) {
      it = h.listeners.emplace(key, std::make_unique<Listener>(h, handler)).first;
    } else {
      luaL_unref(L, LUA_REGISTRYINDEX, it->second->handler_);
      it->second->handler_ = handler;
    }
    p.listener = it->second.get();
  }
  h.pending = std::move(p);
  return lua_yield(L, 0);
}
int api_subscribe(lua_State* L) { return subscription(L, "subscribe", Wait::kSubscribe); }
int api_unsubscribe(lua_State* L) { return subscription(L, "unsubscribe", Wait::kUnsubscribe); }

// script_sha(name) / script_source(name): a declared script's SHA1 (lower-case hex) and body, for
// clients that send EVALSHA and SCRIPT LOAD themselves.
const Script& script_arg(lua_State* L, const char* fn) {
  const std::string name = arg_text(L, 1, fn, "script");
  const Script* script = host_of(L).def->script(name);
  if (script == nullptr) luaL_error(L, "lockstep.%s: no script named '%s'", fn, excerpt(name).c_str());
  return *script;
}
int api_script_sha(lua_State* L) {
  const Script& s = script_arg(L, "script_sha");
  lua_pushlstring(L, s.sha1.data(), s.sha1.size());
  return 1;
}
int api_script_source(lua_State* L) {
  const Script& s = script_arg(L, "script_source");
  lua_pushlstring(L, s.body.data(), s.body.size());
  return 1;
}

int api_subscribed(lua_State* L) {
  Runtime& rt = client(L, "subscribed");
  const std::string channel = arg_text(L, 1, "subscribed", "channel");
  lua_pushboolean(L, rt.pubsub(endpoint_arg(L, 2, "subscribed")).subscribed(channel) ? 1 : 0);
  return 1;
}

int api_now_ms(lua_State* L) {
  lua_pushnumber(L, static_cast<lua_Number>(client(L, "now_ms").now_ms()));
  return 1;
}
int api_now_us(lua_State* L) {
  lua_pushnumber(L, static_cast<lua_Number>(client(L, "now_us").now_us()));
  return 1;
}

int api_random(lua_State* L) {
  Runtime& rt = client(L, "random");
  const int64_t lo = integer_arg(L, 1, "random", "lo", -(int64_t{1} << 52), int64_t{1} << 52);
  const int64_t hi = integer_arg(L, 2, "random", "hi", lo, int64_t{1} << 52);
  lua_pushnumber(L, static_cast<lua_Number>(rt.rng().between(lo, hi)));
  return 1;
}

// math.random over the client's stream: () a float in [0, 1); (m) an integer in [1, m];
// (m, n) an integer in [m, n] (Lua 5.1's contract).
int api_math_random(lua_State* L) {
  Runtime& rt = client(L, "random (math.random)");
  switch (lua_gettop(L)) {
    case 0:
      lua_pushnumber(L, static_cast<lua_Number>(rt.rng().next_u64() >> 11) * 0x1.0p-53);
      return 1;
    case 1: {
      const int64_t m = integer_arg(L, 1, "random (math.random)", "m", 1, int64_t{1} << 52);
      lua_pushnumber(L, static_cast<lua_Number>(rt.rng().between(1, m)));
      return 1;
    }
    default: {
      const int64_t m = integer_arg(L, 1, "random (math.random)", "m", -(int64_t{1} << 52), int64_t{1} << 52);
      const int64_t n = integer_arg(L, 2, "random (math.random)", "n", m, int64_t{1} << 52);
      lua_pushnumber(L, static_cast<lua_Number>(rt.rng().between(m, n)));
      return 1;
    }
  }
}

int api_no_randomseed(lua_State* L) {
  return luaL_error(L, "math.randomseed: a client's random stream is seeded by the run (its seed and the client's name)");
}

int api_uuid(lua_State* L) {
  const std::string_view u = client(L, "uuid").uuid();
  lua_pushlstring(L, u.data(), u.size());
  return 1;
}
int api_client_name(lua_State* L) {
  const std::string& n = client(L, "client_name").client_name();
  lua_pushlstring(L, n.data(), n.size());
  return 1;
}
int api_owner(lua_State* L) {
  Runtime& rt = client(L, "owner");
  const std::string o = rt.owner_name(thread_arg(L, 1, "owner"));
  lua_pushlstring(L, o.data(), o.size());
  return 1;
}
int api_endpoints(lua_State* L) {
  lua_pushnumber(L, static_cast<lua_Number>(client(L, "endpoints").endpoints()));
  return 1;
}
int api_replicas(lua_State* L) {
  Runtime& rt = client(L, "replicas");
  lua_pushnumber(L, static_cast<lua_Number>(rt.replicas(endpoint_arg(L, 1, "replicas"))));
  return 1;
}

int api_cover(lua_State* L) {
  Host& h = host_of(L);
  Runtime& rt = client(L, "cover");
  const std::string point = arg_text(L, 1, "cover", "point");
  bool declared = false;
  for (const std::string& c : h.def->coverage) declared = declared || c == point;
  if (!declared) luaL_error(L, "lockstep.cover: '%s' is not among the file's declared `coverage` points", excerpt(point).c_str());
  rt.cover(point);
  return 0;
}

int api_hold_lost(lua_State* L) {
  Runtime& rt = client(L, "hold_lost");
  const Thread& t = thread_arg(L, 1, "hold_lost");
  const std::string lock = arg_text(L, 2, "hold_lost", "lock");
  rt.hold_lost(t, lock, mode_arg(L, 3, "hold_lost"));
  return 0;
}

// begin_op{thread=, lock=, op="renew", mode=, lease_ms=} -> the operation's id.
int api_begin_op(lua_State* L) {
  Runtime& rt = client(L, "begin_op");
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_getfield(L, 1, "thread");
  const Thread& t = thread_arg(L, -1, "begin_op");
  lua_getfield(L, 1, "lock");
  const std::string lock = arg_text(L, -1, "begin_op", "lock");
  lua_getfield(L, 1, "op");
  const std::string op = lua_isnil(L, -1) ? "renew" : arg_text(L, -1, "begin_op", "op");
  lua_getfield(L, 1, "mode");
  const history::LockMode mode = mode_arg(L, -1, "begin_op");
  lua_getfield(L, 1, "lease_ms");
  const int64_t lease = lua_isnil(L, -1) ? history::kAbsent : integer_arg(L, -1, "begin_op", "lease_ms", 0, history::kMaxDurationMs);
  OpRecord rec;
  rec.thread = &t;
  rec.lock = lock;
  rec.mode = mode;
  rec.lease_ms = lease;
  bool known = false;
  for (auto k : {history::OpKind::kLock, history::OpKind::kTryLock, history::OpKind::kUnlock,
                 history::OpKind::kForceUnlock, history::OpKind::kRenew}) {
    if (op == history::to_string(k)) {
      rec.op = k;
      known = true;
    }
  }
  if (!known) luaL_error(L, "lockstep.begin_op: op: expected renew (or lock, try_lock, unlock, force_unlock), found '%s'", excerpt(op).c_str());
  lua_pushnumber(L, static_cast<lua_Number>(rt.begin_op(rec)));
  return 1;
}

// end_op(id, {outcome="ok"|"fail"|"unknown", renewed=true|false, error="..."}).
int api_end_op(lua_State* L) {
  Runtime& rt = client(L, "end_op");
  const int64_t op = integer_arg(L, 1, "end_op", "id", 0, INT64_MAX / 2);
  OpResult res;
  if (!lua_isnoneornil(L, 2)) {
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_getfield(L, 2, "outcome");
    const std::string outcome = lua_isnil(L, -1) ? "ok" : arg_text(L, -1, "end_op", "outcome");
    if (outcome == "ok") res.outcome = Outcome::kOk;
    else if (outcome == "fail") res.outcome = Outcome::kFail;
    else if (outcome == "unknown") res.outcome = Outcome::kUnknown;
    else luaL_error(L, "lockstep.end_op: outcome: expected ok, fail or unknown, found '%s'", excerpt(outcome).c_str());
    lua_getfield(L, 2, "renewed");
    if (!lua_isnil(L, -1)) res.renewed = lua_toboolean(L, -1) ? 1 : 0;
    lua_getfield(L, 2, "error");
    if (!lua_isnil(L, -1)) res.error = arg_text(L, -1, "end_op", "error");
  }
  rt.end_op(op, res);
  return 0;
}

Task<void> background(Host* h, lua_State* co, int ref, std::weak_ptr<bool> alive);

// spawn(fn, ...) -> a task id: fn(...) runs as a background task (a watchdog) of this client.
int api_spawn(lua_State* L) {
  Host& h = host_of(L);
  Runtime& rt = client(L, "spawn");
  luaL_checktype(L, 1, LUA_TFUNCTION);
  const int n = lua_gettop(L);
  lua_State* co = lua_newthread(L);
  const int ref = luaL_ref(L, LUA_REGISTRYINDEX);
  for (int i = 1; i <= n; ++i) lua_pushvalue(L, i);
  lua_xmove(L, co, n);
  const TaskId id = rt.spawn(background(&h, co, ref, h.alive));
  const int64_t lua_id = ++h.next_task;
  h.tasks[lua_id] = id;
  lua_pushnumber(L, static_cast<lua_Number>(lua_id));
  return 1;
}

int api_cancel(lua_State* L) {
  Host& h = host_of(L);
  Runtime& rt = client(L, "cancel");
  if (lua_isnoneornil(L, 1)) return 0;
  auto it = h.tasks.find(integer_arg(L, 1, "cancel", "id", 0, INT64_MAX / 2));
  if (it != h.tasks.end()) {
    rt.cancel(it->second);
    h.tasks.erase(it);
  }
  return 0;
}

int api_running(lua_State* L) {
  Host& h = host_of(L);
  Runtime& rt = client(L, "running");
  auto it = h.tasks.find(integer_arg(L, 1, "running", "id", 0, INT64_MAX / 2));
  lua_pushboolean(L, it != h.tasks.end() && rt.running(it->second) ? 1 : 0);
  return 1;
}

std::unique_ptr<Semaphore>& semaphore_arg(lua_State* L, const char* fn) {
  auto* s = static_cast<std::unique_ptr<Semaphore>*>(luaL_checkudata(L, 1, kSemaphoreMeta));
  if (*s == nullptr) luaL_error(L, "semaphore:%s: the semaphore is gone", fn);
  return *s;
}

// semaphore(permits) -> a semaphore timed by the client's clock: s:acquire(timeout_ms) (-1:
// forever, 0: no wait) -> true if a permit was taken; s:release(n); s:available().
int api_semaphore(lua_State* L) {
  Runtime& rt = client(L, "semaphore");
  const int64_t permits = lua_isnoneornil(L, 1) ? 0 : integer_arg(L, 1, "semaphore", "permits", 0, int64_t{1} << 40);
  void* mem = lua_newuserdata(L, sizeof(std::unique_ptr<Semaphore>));
  new (mem) std::unique_ptr<Semaphore>(rt.new_semaphore(permits));
  luaL_getmetatable(L, kSemaphoreMeta);
  lua_setmetatable(L, -2);
  return 1;
}

int semaphore_gc(lua_State* L) {
  auto* s = static_cast<std::unique_ptr<Semaphore>*>(luaL_checkudata(L, 1, kSemaphoreMeta));
  s->~unique_ptr<Semaphore>();
  return 0;
}

int semaphore_release(lua_State* L) {
  std::unique_ptr<Semaphore>& s = semaphore_arg(L, "release");
  s->release(lua_isnoneornil(L, 2) ? 1 : integer_arg(L, 2, "semaphore:release", "permits", 0, int64_t{1} << 40));
  return 0;
}

int semaphore_available(lua_State* L) {
  lua_pushnumber(L, static_cast<lua_Number>(semaphore_arg(L, "available")->available()));
  return 1;
}

int semaphore_acquire(lua_State* L) {
  std::unique_ptr<Semaphore>& s = semaphore_arg(L, "acquire");
  Host& h = waiting(L, "semaphore:acquire");
  Pending p;
  p.wait = Wait::kSemaphore;
  p.semaphore = s.get();
  p.ms = lua_isnoneornil(L, 2) ? -1 : integer_arg(L, 2, "semaphore:acquire", "timeout_ms", -1, int64_t{1} << 50);
  lua_pushvalue(L, 1);
  p.anchor = luaL_ref(L, LUA_REGISTRYINDEX);
  h.pending = std::move(p);
  return lua_yield(L, 0);
}

// What the pcall written over coroutines asks of its host.
int api_yield_pending(lua_State* L) {
  Host& h = host_of(L);
  const bool main = lua_pushthread(L) == 1;
  lua_pop(L, 1);
  if (main || h.pending.wait == Wait::kNone) return luaL_error(L, "a wait inside pcall outside any client coroutine");
  return lua_yield(L, 0);
}
// coroutine.create for any function, C ones included (pcall(error, "x") must not gain a frame).
int api_create(lua_State* L) {
  luaL_checktype(L, 1, LUA_TFUNCTION);
  lua_State* co = lua_newthread(L);
  lua_pushvalue(L, 1);
  lua_xmove(L, co, 1);
  return 1;
}
int api_fatal(lua_State* L) {
  Host& h = host_of(L);
  if (h.fatal.empty()) return 0;
  lua_pushlstring(L, h.fatal.data(), h.fatal.size());
  return 1;
}

// The sandbox's pcall and xpcall, over coroutines, so that a lockstep wait inside them reaches
// the driver (Lua 5.1 cannot yield across a C pcall). A budget or memory failure is not caught.
constexpr const char* kPrelude = R"lua(
local resume, status = coroutine.resume, coroutine.status
local yield_pending, fatal, create = ...
local select, unpack, error, type = select, unpack, error, type
local function pack(...) return { n = select('#', ...), ... } end
local function run(f, ...)
  if type(f) ~= 'function' then return false, 'attempt to call a ' .. type(f) .. ' value' end
  local co = create(f)
  local r = pack(resume(co, ...))
  while true do
    if not r[1] then
      local why = fatal()
      if why then error(why, 0) end
      return false, r[2]
    end
    if status(co) == 'dead' then return unpack(r, 1, r.n) end
    r = pack(resume(co, yield_pending()))
  end
end
pcall = run
xpcall = function(f, handler)
  local r = pack(run(f))
  if r[1] then return unpack(r, 1, r.n) end
  return false, handler(r[2])
end
)lua";

// lockstep.fan_out(fn): fn(endpoint) on every endpoint at once, one background task each (as a
// RedLock client sends to its masters in parallel); waits for all and returns their first results
// by endpoint. Written in Lua over spawn and a semaphore.
constexpr const char* kFanOut = R"lua(
local lockstep = ...
function lockstep.fan_out(fn)
  local n = lockstep.endpoints()
  local results, done = {}, lockstep.semaphore(0)
  for i = 1, n do
    lockstep.spawn(function()
      results[i] = fn(i)
      done:release(1)
    end)
  end
  for _ = 1, n do done:acquire(-1) end
  return results
end
)lua";

// ---- The sandbox ----------------------------------------------------------------------------

void* allocate(void* ud, void* ptr, size_t osize, size_t nsize) {
  Host& h = *static_cast<Host*>(ud);
  if (nsize == 0) {
    h.arena.realloc(ptr, osize, 0);
    h.memory -= osize;
    return nullptr;
  }
  if (nsize > osize && h.limited && h.memory - osize + nsize > kMemoryLimitBytes) {
    if (h.fatal.empty()) {
      h.fatal = "the client's Lua state reached its memory limit of " + std::to_string(kMemoryLimitBytes >> 20) + " MiB";
    }
    return nullptr;
  }
  void* p = h.arena.realloc(ptr, osize, nsize);
  if (p == nullptr) return nullptr;
  h.memory = h.memory - osize + nsize;
  return p;
}

void count_hook(lua_State* L, lua_Debug*) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  Host& h = *static_cast<Host*>(ud);
  h.used += kHookPeriod;
  if (h.used <= kInstructionBudget) return;
  lua_Debug ar;
  std::string where;
  if (lua_getstack(L, 0, &ar) && lua_getinfo(L, "Sl", &ar) && ar.currentline > 0) {
    where = std::string(ar.short_src) + ":" + std::to_string(ar.currentline) + ": ";
  }
  h.fatal = where + "ran " + std::to_string(kInstructionBudget) +
            " Lua instructions without waiting (a loop that never calls a lockstep wait?)";
  lua_pushlstring(L, h.fatal.data(), h.fatal.size());
  lua_error(L);
}

// An error outside any protected call is lockstep's bug (every entry into Lua is protected).
int panic(lua_State* L) {
  const char* msg = lua_tostring(L, -1);
  std::fprintf(stderr, "lockstep: unprotected Lua error in a Lua algorithm: %s\n", msg != nullptr ? msg : "?");
  LS_ASSERT(false && "unprotected Lua error");
  return 0;
}

void set_function(lua_State* L, Host* h, const char* name, lua_CFunction fn) {
  lua_pushlightuserdata(L, h);
  lua_pushcclosure(L, fn, 1);
  lua_setfield(L, -2, name);
}

// Pushes `j` (an option's value: integer, boolean or string).
void push_json(lua_State* L, const nlohmann::json& j) {
  if (j.is_boolean()) lua_pushboolean(L, j.get<bool>() ? 1 : 0);
  else if (j.is_number()) lua_pushnumber(L, j.get<double>());
  else if (j.is_string()) lua_pushlstring(L, j.get_ref<const std::string&>().data(), j.get_ref<const std::string&>().size());
  else lua_pushnil(L);
}

// Builds the sandbox in protected mode (lua_cpcall), so that running out of memory is an error.
int build_sandbox(lua_State* L) {
  Host* h = static_cast<Host*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  for (auto [name, open] : {std::pair<const char*, lua_CFunction>{"", luaopen_base},
                            {LUA_TABLIBNAME, luaopen_table},
                            {LUA_STRLIBNAME, luaopen_string},
                            {LUA_MATHLIBNAME, luaopen_math}}) {
    lua_pushcfunction(L, open);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
  }
  // tostring prints no addresses: a token made of tostring({}) must be the same in every run.
  install_deterministic_tostring(L, h->rt != nullptr ? std::string_view(h->rt->client_name()) : std::string_view());
  // The prelude captures the coroutine functions before they leave the sandbox.
  if (luaL_loadbuffer(L, kPrelude, std::strlen(kPrelude), "=lockstep prelude") != 0) lua_error(L);
  lua_pushlightuserdata(L, h);
  lua_pushcclosure(L, api_yield_pending, 1);
  lua_pushlightuserdata(L, h);
  lua_pushcclosure(L, api_fatal, 1);
  lua_pushcfunction(L, api_create);
  lua_call(L, 3, 0);
  for (const char* name : {"coroutine", "dofile", "loadfile", "load", "loadstring", "print", "module",
                           "require", "gcinfo", "newproxy", "collectgarbage", "getfenv", "setfenv"}) {
    lua_pushnil(L);
    lua_setglobal(L, name);
  }
  lua_getglobal(L, LUA_STRLIBNAME);
  lua_pushnil(L);
  lua_setfield(L, -2, "dump");
  lua_pop(L, 1);
  lua_getglobal(L, LUA_MATHLIBNAME);
  set_function(L, h, "random", api_math_random);
  set_function(L, h, "randomseed", api_no_randomseed);
  lua_pop(L, 1);

  luaL_newmetatable(L, kSemaphoreMeta);
  lua_pushcfunction(L, semaphore_gc);
  lua_setfield(L, -2, "__gc");
  lua_createtable(L, 0, 3);
  lua_pushcfunction(L, semaphore_release);
  lua_setfield(L, -2, "release");
  lua_pushcfunction(L, semaphore_available);
  lua_setfield(L, -2, "available");
  lua_pushlightuserdata(L, h);
  lua_pushcclosure(L, semaphore_acquire, 1);
  lua_setfield(L, -2, "acquire");
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);

  lua_newtable(L);
  const std::pair<const char*, lua_CFunction> api[] = {
      {"call", api_call},           {"eval", api_eval},
      {"evalsha", api_evalsha},     {"sleep", api_sleep},
      {"subscribe", api_subscribe}, {"unsubscribe", api_unsubscribe},
      {"subscribed", api_subscribed}, {"now_ms", api_now_ms},
      {"now_us", api_now_us},       {"random", api_random},
      {"uuid", api_uuid},           {"client_name", api_client_name},
      {"owner", api_owner},         {"endpoints", api_endpoints},
      {"replicas", api_replicas},   {"cover", api_cover},
      {"hold_lost", api_hold_lost}, {"begin_op", api_begin_op},
      {"end_op", api_end_op},       {"spawn", api_spawn},
      {"cancel", api_cancel},       {"running", api_running},
      {"semaphore", api_semaphore}, {"script_sha", api_script_sha},
      {"script_source", api_script_source},
  };
  for (const auto& [name, fn] : api) set_function(L, h, name, fn);
  lua_pushstring(L, kTimeoutText);
  lua_setfield(L, -2, "TIMEOUT");
  lua_createtable(L, 0, static_cast<int>(h->options.size()));
  for (auto it = h->options.begin(); it != h->options.end(); ++it) {
    push_json(L, it.value());
    lua_setfield(L, -2, it.key().c_str());
  }
  lua_setfield(L, -2, "options");
  lua_createtable(L, 0, 6);
  if (h->rt != nullptr) {
    const ClientOptions& o = h->rt->options();
    for (auto [name, value] : {std::pair<const char*, int64_t>{"timeout_ms", o.timeout_ms},
                               {"retry_attempts", o.retry_attempts},
                               {"retry_interval_ms", o.retry_interval_ms},
                               {"subscription_timeout_ms", o.subscription_timeout_ms},
                               {"lock_watchdog_timeout_ms", o.lock_watchdog_timeout_ms}}) {
      lua_pushnumber(L, static_cast<lua_Number>(value));
      lua_setfield(L, -2, name);
    }
  }
  lua_setfield(L, -2, "client");
  if (luaL_loadbuffer(L, kFanOut, std::strlen(kFanOut), "=lockstep prelude") != 0) lua_error(L);
  lua_pushvalue(L, -2);
  lua_call(L, 1, 0);
  lua_setglobal(L, "lockstep");
  return 0;
}

void Listener::on_message(std::string_view channel, std::string_view message) {
  host_.run_handler(handler_, channel, message);
}

Host::Host(std::shared_ptr<const Definition> d, Runtime* runtime, const nlohmann::json& opts)
    : def(std::move(d)), rt(runtime), arena(runtime != nullptr ? std::string_view(runtime->client_name()) : std::string_view()),
      options(opts) {
  L = lua_newstate(allocate, this);
  if (L == nullptr) throw std::bad_alloc();  // the arena could map nothing: the process is out of memory
  lua_atpanic(L, panic);
  lua_sethook(L, count_hook, LUA_MASKCOUNT, kHookPeriod);
}

Host::~Host() {
  *alive = false;
  listeners.clear();
  lua_close(L);
}

std::string Host::failure(lua_State* co, int status) {
  if (!fatal.empty()) return fatal;
  if (status == LUA_ERRMEM) return "the client's Lua state ran out of memory";
  size_t size = 0;
  const char* msg = lua_tolstring(co, -1, &size);
  if (msg == nullptr) return std::string("an error object that is not a string (") + luaL_typename(co, -1) + ")";
  // error(string.rep('E', 1e7)) put 10 MB on stderr and into result.json: keep the start.
  constexpr size_t kShownBytes = 4096;
  if (size <= kShownBytes) return std::string(msg, size);
  size_t cut = kShownBytes;
  while (cut > 0 && (static_cast<unsigned char>(msg[cut]) & 0xC0) == 0x80) cut--;  // not inside a UTF-8 character
  return std::string(msg, cut) + "... (an error message of " + std::to_string(size) + " bytes)";
}

void Host::fail(const std::string& message) {
  const std::string file = def->file.empty() ? def->shown() : def->file;
  // Lua's messages start with "<file>:<line>:" already; others get the file.
  const std::string text = message.rfind(def->shown(), 0) == 0 ? message : file + ": " + message;
  if (rt != nullptr) rt->fail(text);
}

Status Host::load() {
  used = 0;
  if (lua_cpcall(L, build_sandbox, this) != 0) return Status::error(def->named(failure(L, LUA_ERRRUN)));
  used = 0;
  limited = true;
  int status = luaL_loadbuffer(L, def->source.data(), def->source.size(), def->chunk_name.c_str());
  if (status == 0) status = lua_pcall(L, 0, 1, 0);
  limited = false;
  if (status != 0) return Status::error(def->named(failure(L, status)));
  return Status::ok_status();
}

lua_State* Host::new_coroutine(const char* name, int* ref) {
  lua_State* co = lua_newthread(L);
  *ref = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_rawgeti(co, LUA_REGISTRYINDEX, module_ref);
  lua_pushstring(co, name);
  lua_rawget(co, -2);  // raw: outside a protected call, a metatable's __index must not run
  lua_remove(co, -2);
  return co;
}

Task<int> Host::drive(lua_State* co, int nargs) {
  for (;;) {
    pending = Pending{};
    used = 0;
    limited = true;
    const int status = lua_resume(co, nargs);
    limited = false;
    if (status == 0) co_return lua_gettop(co);
    if (status != LUA_YIELD) {
      fail(failure(co, status));
      co_return -1;
    }
    Pending p = std::move(pending);
    pending = Pending{};
    LS_ASSERT(p.wait != Wait::kNone);  // only the lockstep waits yield (no coroutine library)
    lua_settop(co, 0);
    nargs = co_await serve(co, std::move(p));
    if (!fatal.empty()) co_return -1;
  }
}

Task<int> Host::serve(lua_State* co, Pending p) {
  CallResult r;
  switch (p.wait) {
    case Wait::kCall:
      r = co_await rt->conn(p.endpoint).call(std::move(p.argv), std::move(p.call));
      break;
    case Wait::kEval:
      r = co_await rt->conn(p.endpoint).eval(*p.script, std::move(p.keys), std::move(p.args), std::move(p.call));
      break;
    case Wait::kEvalSha:
      r = co_await rt->conn(p.endpoint).evalsha(*p.script, std::move(p.keys), std::move(p.args), std::move(p.call));
      break;
    case Wait::kSleep:
      co_await rt->sleep_ms(p.ms);
      co_return 0;
    case Wait::kSubscribe:
      r = co_await rt->pubsub(p.endpoint).subscribe(p.argv[0], p.listener);
      break;
    case Wait::kUnsubscribe:
      r = co_await rt->pubsub(p.endpoint).unsubscribe(p.argv[0]);
      break;
    case Wait::kSemaphore: {
      const bool taken = co_await p.semaphore->try_acquire(p.ms);
      luaL_unref(L, LUA_REGISTRYINDEX, p.anchor);
      lua_pushboolean(co, taken ? 1 : 0);
      co_return 1;
    }
    case Wait::kNone:
      LS_ASSERT(false);
  }
  // The results: reply, nil, attempts | nil, error text, attempts | nil, "timeout", attempts.
  // Subscriptions give true instead of the reply.
  lua_checkstack(co, 4);
  if (!r.ok()) {
    lua_pushnil(co);
    lua_pushstring(co, kTimeoutText);
  } else if (r.reply.is_error()) {
    lua_pushnil(co);
    lua_pushlstring(co, r.reply.str.data(), r.reply.str.size());
  } else {
    if (p.wait == Wait::kSubscribe || p.wait == Wait::kUnsubscribe) {
      lua_pushboolean(co, 1);
    } else {
      push_reply(co, r.reply, 0);
    }
    lua_pushnil(co);
  }
  lua_pushnumber(co, static_cast<lua_Number>(r.attempts));
  co_return 3;
}

void Host::run_handler(int handler, std::string_view channel, std::string_view message) {
  if (!fatal.empty()) return;
  lua_rawgeti(L, LUA_REGISTRYINDEX, handler);
  lua_pushlstring(L, channel.data(), channel.size());
  lua_pushlstring(L, message.data(), message.size());
  used = 0;
  limited = true;
  const int status = lua_pcall(L, 2, 0, 0);
  limited = false;
  if (status != 0) {
    fail(failure(L, status));
    lua_pop(L, 1);
  }
}

// Frees a coroutine's registry slot when its driver's frame goes (a crash or cancel included).
struct CoroutineRef {
  Host* host;
  int ref;
  std::weak_ptr<bool> alive;
  ~CoroutineRef() {
    if (alive.lock()) luaL_unref(host->L, LUA_REGISTRYINDEX, ref);
  }
};

Task<void> background(Host* h, lua_State* co, int ref, std::weak_ptr<bool> alive) {
  CoroutineRef guard{h, ref, std::move(alive)};
  (void)co_await h->drive(co, lua_gettop(co) - 1);
}

// ---- The LockClient -------------------------------------------------------------------------

class LuaLockClient : public LockClient {
 public:
  LuaLockClient(std::shared_ptr<const Definition> def, Runtime& rt, const nlohmann::json& options)
      : host_(std::move(def), &rt, options) {}

  Status start() {
    Status s = host_.load();
    if (!s.ok()) return s;
    if (!lua_istable(host_.L, -1)) return Status::error(host_.def->named("did not return a table"));
    host_.module_ref = luaL_ref(host_.L, LUA_REGISTRYINDEX);
    return Status::ok_status();
  }

  Task<LockOutcome> acquire(const Thread& thread, const LockRequest& req) override {
    return run("acquire", thread, req);
  }
  Task<LockOutcome> release(const Thread& thread, const LockRequest& req) override {
    return run("release", thread, req);
  }
  Task<LockOutcome> force_release(const Thread& thread, const LockRequest& req) override {
    if (!host_.def->has_force_release) return not_supported();
    return run("force_release", thread, req);
  }

 private:
  static Task<LockOutcome> not_supported() { co_return LockOutcome::fail("force_release is not supported by this algorithm"); }
  Task<LockOutcome> run(const char* fn, const Thread& thread, const LockRequest& req);
  LockOutcome outcome_of(lua_State* co, int results, const char* fn);

  Host host_;
};

void push_thread(lua_State* L, const Thread& t) {
  lua_createtable(L, 0, 3);
  lua_pushnumber(L, t.index);
  lua_setfield(L, -2, "index");
  lua_pushnumber(L, static_cast<lua_Number>(t.id));
  lua_setfield(L, -2, "id");
  lua_pushlstring(L, t.name.data(), t.name.size());
  lua_setfield(L, -2, "name");
}

void push_request(lua_State* L, const LockRequest& req) {
  lua_createtable(L, 0, 7);
  lua_pushlstring(L, req.lock.data(), req.lock.size());
  lua_setfield(L, -2, "lock");
  const std::string_view mode = history::to_string(req.mode);
  lua_pushlstring(L, mode.data(), mode.size());
  lua_setfield(L, -2, "mode");
  lua_pushnumber(L, static_cast<lua_Number>(req.wait_ms));
  lua_setfield(L, -2, "wait_ms");
  lua_pushnumber(L, static_cast<lua_Number>(req.lease_ms));
  lua_setfield(L, -2, "lease_ms");
  lua_pushnumber(L, static_cast<lua_Number>(req.op));
  lua_setfield(L, -2, "op");
  lua_pushlstring(L, req.object.data(), req.object.size());
  lua_setfield(L, -2, "object");
  lua_pushboolean(L, req.interruptibly ? 1 : 0);
  lua_setfield(L, -2, "interruptibly");
}

Task<LockOutcome> LuaLockClient::run(const char* fn, const Thread& thread, const LockRequest& req) {
  host_.threads[thread.index] = &thread;
  CoroutineRef guard{&host_, LUA_NOREF, host_.alive};
  lua_State* co = host_.new_coroutine(fn, &guard.ref);
  push_thread(co, thread);
  push_request(co, req);
  const int results = co_await host_.drive(co, 2);
  if (results < 0) co_return LockOutcome::fail("the algorithm's Lua failed (the run ends)");
  co_return outcome_of(co, results, fn);
}

// acquire/release return: a table {acquired=, released=, count=, token=, validity_ms=,
// outcome="ok"|"fail"|"unknown", error=}; or true/false (acquired / released); or nil and a
// message (fail, or unknown when the message is lockstep.TIMEOUT).
LockOutcome LuaLockClient::outcome_of(lua_State* co, int results, const char* fn) {
  const bool acquire = std::strcmp(fn, "acquire") == 0;
  const int first = lua_gettop(co) - results + 1;
  if (results == 0 || lua_isnil(co, first)) {
    const char* msg = results >= 2 ? lua_tostring(co, first + 1) : nullptr;
    if (msg != nullptr && std::strcmp(msg, kTimeoutText) == 0) return LockOutcome::unknown("command timed out");
    return LockOutcome::fail(msg != nullptr ? msg : std::string(fn) + " returned nil");
  }
  LockOutcome out;
  if (lua_isboolean(co, first)) {
    (acquire ? out.acquired : out.released) = lua_toboolean(co, first) != 0;
    return out;
  }
  if (!lua_istable(co, first)) {
    host_.fail(std::string(fn) + " returned a " + luaL_typename(co, first) +
               " (expected a table, a boolean, or nil and a message)");
    return LockOutcome::fail("bad result");
  }
  // Raw reads: this runs outside a protected call, where a metatable's __index must not run.
  // A field of the wrong type ends the run, as a value out of range does: read as something
  // else, it would record a result the algorithm did not give.
  auto field = [&](const char* name) {
    lua_pushstring(co, name);
    lua_rawget(co, first);
    return lua_gettop(co);
  };
  auto wrong_type = [&](const char* name, int i, const char* expected) {
    host_.fail(std::string(fn) + " returned " + name + " = a " + luaL_typename(co, i) + " (expected " + expected + ")");
  };
  lua_checkstack(co, 8);
  const int o = field("outcome");
  const char* outcome = lua_type(co, o) == LUA_TSTRING ? lua_tostring(co, o) : nullptr;
  if (!lua_isnil(co, o) && outcome == nullptr) wrong_type("outcome", o, "ok, fail or unknown");
  if (outcome == nullptr || std::strcmp(outcome, "ok") == 0) out.outcome = Outcome::kOk;
  else if (std::strcmp(outcome, "fail") == 0) out.outcome = Outcome::kFail;
  else if (std::strcmp(outcome, "unknown") == 0) out.outcome = Outcome::kUnknown;
  else host_.fail(std::string(fn) + " returned outcome '" + outcome + "' (expected ok, fail or unknown)");
  for (const auto& [name, slot] : {std::pair{"acquired", &out.acquired}, std::pair{"released", &out.released}}) {
    const int i = field(name);
    if (!lua_isnil(co, i) && !lua_isboolean(co, i)) wrong_type(name, i, "a boolean");
    *slot = lua_toboolean(co, i) != 0;
    // An answer must say what happened: `{}` or `{count = 1}` read as "not acquired" recorded a
    // failure while the lock may well be held on the server.
    const bool answers = std::strcmp(name, acquire ? "acquired" : "released") == 0;
    if (answers && lua_isnil(co, i) && out.outcome == Outcome::kOk) {
      host_.fail(std::string(fn) + " returned a table without " + name +
                 " (an ok result says whether it " + (acquire ? "acquired" : "released") +
                 "; a failure has outcome = \"fail\" or \"unknown\")");
    }
  }
  // Within what the history format allows (docs/history-format.md, "Limits"), so a run never
  // writes a history its own checker refuses.
  struct Bounded {
    const char* name;
    int64_t* slot;
    int64_t min, max;
  };
  for (const Bounded& b : {Bounded{"count", &out.count, 0, INT32_MAX},
                           Bounded{"token", &out.token, -(int64_t{1} << 53), int64_t{1} << 53},
                           Bounded{"validity_ms", &out.validity_ms, -history::kMaxDurationMs, history::kMaxDurationMs}}) {
    const int i = field(b.name);
    if (lua_isnil(co, i)) continue;
    if (lua_type(co, i) != LUA_TNUMBER) {
      wrong_type(b.name, i, "a number");
      continue;
    }
    const double d = std::floor(lua_tonumber(co, i));  // a fraction is cut off, as it always was
    if (!(d >= static_cast<double>(b.min) && d <= static_cast<double>(b.max))) {  // NaN fails too
      host_.fail(std::string(fn) + " returned " + b.name + " = " + lua_tostring(co, i) + " (expected a number in [" +
                 std::to_string(b.min) + ", " + std::to_string(b.max) + "])");
      continue;
    }
    *b.slot = static_cast<int64_t>(d);
  }
  const int e = field("error");
  if (!lua_isnil(co, e) && !lua_isstring(co, e)) wrong_type("error", e, "a string");
  if (const char* err = lua_tostring(co, e)) out.error = err;
  if (out.outcome != Outcome::kOk && out.error.empty()) out.error = std::string(fn) + " failed";
  return out;
}

}  // namespace

std::unique_ptr<LockClient> make_lua_client(std::shared_ptr<const Definition> def, Runtime& rt,
                                            const nlohmann::json& options) {
  auto client = std::make_unique<LuaLockClient>(std::move(def), rt, options);
  Status s = client->start();
  // The declaration was read from the same source, so only the client's own top-level code can
  // fail here (e.g. it reads the client options): the run ends with that error.
  if (!s.ok()) rt.fail(s.message());
  return client;
}

Status with_loaded_module(const Definition& def, const nlohmann::json& options,
                          const std::function<Status(lua_State*)>& read) {
  auto shared = std::shared_ptr<const Definition>(&def, [](const Definition*) {});
  Host host(shared, nullptr, options);
  Status s = host.load();
  if (!s.ok()) return s;
  return read(host.L);
}

}  // namespace lockstep::algorithms::lua_client
