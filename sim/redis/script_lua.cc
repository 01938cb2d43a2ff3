#include <algorithm>
#include "sim/redis/script_lua.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <unordered_map>

#include "sim/core/assert.h"
#include "sim/core/lua_tostring.h"
#include "sim/redis/commands.h"
#include "sim/redis/node.h"
#include "sim/redis/script_lua_internal.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

namespace {

// Lua numbers become integers as C's (long long) cast does on x86-64: NaN and out-of-range
// values give INT64_MIN ("return 1e20" replies :-9223372036854775808 on Redis).
int64_t lua_number_to_int64(lua_Number d) {
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return INT64_MIN;
  return static_cast<int64_t>(d);
}

// Maps CR and LF to spaces (status and big-number replies).
std::string map_crlf(std::string_view text) {
  std::string out(text);
  for (char& ch : out) {
    if (ch == '\r' || ch == '\n') ch = ' ';
  }
  return out;
}

}  // namespace

void push_error_table(lua_State* L, std::string_view text) {
  std::string_view code = "ERR";
  std::string_view msg = text;
  text = c_string_view(text);
  if (!text.empty() && text[0] == '-') {
    size_t space = text.find(' ');
    if (space == std::string_view::npos) {
      msg = text.substr(1);
    } else {
      code = text.substr(1, space - 1);
      msg = text.substr(space + 1);
    }
  } else {
    msg = text;
  }
  while (!msg.empty() && (msg.front() == '\r' || msg.front() == '\n')) msg.remove_prefix(1);
  while (!msg.empty() && (msg.back() == '\r' || msg.back() == '\n')) msg.remove_suffix(1);
  std::string full(code);
  full += ' ';
  full += msg;
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "err");
  lua_pushlstring(L, full.data(), full.size());
  lua_rawset(L, -3);
}

void mark_ignore_stats(lua_State* L) {
  lua_pushliteral(L, "ignore_error_stats_update");
  lua_pushboolean(L, 1);
  lua_rawset(L, -3);
}

// ---- The host's machinery and the reply conversion ----------------------------------------

LuaHost& LuaHost::Internal::host(lua_State* L) {
  void* ud = nullptr;
  lua_getallocf(L, &ud);
  LS_ASSERT(ud != nullptr);
  return *static_cast<LuaHost*>(ud);
}

// The allocator: counts bytes and, while a script runs, refuses to grow past the limit (Lua
// then raises "not enough memory"). Shrinking never fails, as Lua 5.1 requires.
void* LuaHost::Internal::alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* h = static_cast<LuaHost*>(ud);
  if (nsize == 0) {
    h->arena_.realloc(ptr, osize, 0);
    h->bytes_ -= osize;
    return nullptr;
  }
  if (h->limit_memory_ && nsize > osize && h->bytes_ - osize + nsize > h->memory_limit_) {
    return nullptr;
  }
  void* p = h->arena_.realloc(ptr, osize, nsize);
  if (p != nullptr) h->bytes_ = h->bytes_ - osize + nsize;
  return p;
}

int LuaHost::Internal::panic(lua_State* L) {
  std::fprintf(stderr, "lockstep: unprotected Lua error: %s\n", lua_tostring(L, -1));
  LS_ASSERT(false && "unprotected Lua error");
  return 0;
}

// Instruction budget. Once spent, the hook fires on every instruction, so a script that
// catches the error with pcall is stopped again at once (as Redis does after SCRIPT KILL).
void LuaHost::Internal::count_hook(lua_State* L, lua_Debug* ar) {
  LuaHost& h = host(L);
  if (ar->event == LUA_HOOKLINE) {  // coverage: only set while counting_lines_ is
    std::vector<uint64_t>& hits = *h.counting_lines_;
    const auto line = static_cast<size_t>(ar->currentline);
    if (line >= hits.size()) hits.resize(line + 1, 0);
    ++hits[line];
    return;
  }
  h.instructions_ += kHookPeriod;
  const bool loading = h.registering_ != nullptr;
  if (!h.killed_ && !loading && h.busy_check_ != nullptr && h.busy_check_(h.busy_context_)) {
    h.killed_by_user_ = true;
    h.kill_running(L);
  }
  const uint64_t budget = loading ? std::min(h.budget_, kLoadInstructionBudget) : h.budget_;
  if (!h.killed_ && h.instructions_ <= budget) return;
  if (!h.killed_) h.kill_running(L);
  // Every thread of the script ends up here at its next instruction, also one a coroutine
  // resumed after catching the error.
  lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
  std::string msg = h.killed_by_user_ ? "Script killed by user with SCRIPT KILL..."
                    : loading         ? "FUNCTION LOAD timeout"
                                      : "-ERR Script exceeded the lockstep instruction budget (" +
                                            std::to_string(h.budget_) + " Lua instructions) and was stopped";
  push_error_table(L, msg);
  lua_error(L);
}

void LuaHost::kill_running(lua_State* current) {
  killed_ = true;
  // The main thread and the thread running now stop at their next instruction; any coroutine
  // created from now on inherits that hook, and one resumed later stops at its next hook call.
  lua_sethook(L_, Internal::count_hook, LUA_MASKCOUNT, 1);
  lua_sethook(current, Internal::count_hook, LUA_MASKCOUNT, 1);
}

// The message handler of every script call (Redis's __redis__err__handler): turns the error
// into a table {err=, source=, line=} naming the Lua line that raised it.
int LuaHost::Internal::error_handler(lua_State* L) {
  lua_settop(L, 1);
  lua_Debug ar;
  bool have = lua_getstack(L, 1, &ar) != 0 && lua_getinfo(L, "nSl", &ar) != 0;
  if (have && std::strcmp(ar.what, "C") == 0) {
    have = lua_getstack(L, 2, &ar) != 0 && lua_getinfo(L, "nSl", &ar) != 0;
  }
  // A read-only proxy must not receive the source/line fields: raise a plain table instead.
  if (lua_istable(L, 1) && push_real_if_proxy(L, 1)) {
    lua_settop(L, 0);
    lua_newtable(L);
  }
  if (!lua_istable(L, 1)) {
    // err = {err = 'ERR ' .. tostring(err)}
    lua_getfield(L, LUA_REGISTRYINDEX, "lockstep.tostring");
    lua_pushvalue(L, 1);
    lua_call(L, 1, 1);
    std::string msg = "ERR " + std::string(to_view(L, -1));
    lua_settop(L, 0);
    lua_createtable(L, 0, 3);
    lua_pushliteral(L, "err");
    lua_pushlstring(L, msg.data(), msg.size());
    lua_rawset(L, -3);
  }
  if (have) {
    lua_pushliteral(L, "source");
    lua_pushstring(L, ar.source);
    lua_rawset(L, 1);
    lua_pushliteral(L, "line");
    lua_pushinteger(L, ar.currentline);
    lua_rawset(L, 1);
  }
  return 1;
}

// ---- Reply conversion, Redis -> Lua ----
// As the script's protocol (redis.setresp) has the reply: in RESP2 a map, set or push is an
// array, a double, big number or verbatim string a string, a boolean an integer, a nil false;
// in RESP3 they become the tables {map=}, {set=}, {double=}, {big_number=},
// {verbatim_string={string=, format=}}, booleans, and a nil is nil.
// A C function starts with LUA_MINSTACK free slots; scalars need 3, aggregates check for more.
void LuaHost::Internal::push_reply(lua_State* L, const Reply& r, bool resp3, int depth) {
  switch (r.type) {
    case Reply::Type::kInteger:
      lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      return;
    case Reply::Type::kBulk:
    case Reply::Type::kBigNumber:
    case Reply::Type::kDouble:
      if (resp3 && r.type != Reply::Type::kBulk) return push_resp3_scalar(L, r);
      lua_pushlstring(L, r.str.data(), r.str.size());
      return;
    case Reply::Type::kVerbatim:
      if (resp3) return push_resp3_scalar(L, r);
      lua_pushlstring(L, r.verbatim_text().data(), r.verbatim_text().size());
      return;
    case Reply::Type::kBool:
      if (resp3) {
        lua_pushboolean(L, r.integer != 0);
      } else {
        lua_pushnumber(L, static_cast<lua_Number>(r.integer));
      }
      return;
    case Reply::Type::kNil:
    case Reply::Type::kNilArray:
      if (resp3) {
        lua_pushnil(L);
      } else {
        lua_pushboolean(L, 0);
      }
      return;
    case Reply::Type::kStatus:
      lua_createtable(L, 0, 1);
      lua_pushliteral(L, "ok");
      lua_pushlstring(L, r.str.data(), r.str.size());
      lua_rawset(L, -3);
      return;
    case Reply::Type::kError:
      push_error_table(L, "-" + r.str);
      mark_ignore_stats(L);
      return;
    case Reply::Type::kArray:
    case Reply::Type::kPush:
    case Reply::Type::kMap:
    case Reply::Type::kSet:
      LS_ASSERT(depth < kMaxReplyDepth);
      LS_ASSERT(lua_checkstack(L, 6));
      if (resp3) return push_resp3_aggregate(L, r, depth);
      lua_createtable(L, static_cast<int>(r.elements.size()), 0);
      for (size_t i = 0; i < r.elements.size(); i++) {
        push_reply(L, r.elements[i], resp3, depth + 1);
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
      return;
  }
}

namespace {

// t[name] = value, for the table t on top of the stack.
void set_string_field(lua_State* L, const char* name, std::string_view value) {
  lua_pushstring(L, name);
  lua_pushlstring(L, value.data(), value.size());
  lua_rawset(L, -3);
}

}  // namespace

// {double=n}, {big_number=s}, {verbatim_string={string=s, format=f}}. The tables are built
// as Redis builds them (empty, then filled in this order), so that their iteration order is
// Redis's too.
void LuaHost::Internal::push_resp3_scalar(lua_State* L, const Reply& r) {
  lua_newtable(L);
  if (r.type == Reply::Type::kDouble) {
    lua_pushliteral(L, "double");
    // Redis parses the double it wrote (strtod), so a script sees exactly that number.
    lua_pushnumber(L, std::strtod(r.str.c_str(), nullptr));
    lua_rawset(L, -3);
  } else if (r.type == Reply::Type::kBigNumber) {
    set_string_field(L, "big_number", r.str);
  } else {
    LS_ASSERT(r.type == Reply::Type::kVerbatim);
    lua_pushliteral(L, "verbatim_string");
    lua_newtable(L);
    set_string_field(L, "string", r.verbatim_text());
    set_string_field(L, "format", r.verbatim_format());
    lua_rawset(L, -3);
  }
}

// An array (a nil element leaves a hole), {map={k=v...}} or {set={m=true...}}, each table
// created empty and filled in reply order as Redis does (holes, lengths and iteration order
// then come out the same).
void LuaHost::Internal::push_resp3_aggregate(lua_State* L, const Reply& r, int depth) {
  const bool map = r.type == Reply::Type::kMap;
  const bool set = r.type == Reply::Type::kSet;
  lua_newtable(L);
  if (map || set) {
    lua_pushstring(L, map ? "map" : "set");
    lua_newtable(L);
  }
  for (size_t i = 0; i < r.elements.size(); i++) {
    if (!map && !set) lua_pushnumber(L, static_cast<lua_Number>(i + 1));
    push_reply(L, r.elements[i], /*resp3=*/true, depth + 1);
    if (set) lua_pushboolean(L, 1);
    if (map) push_reply(L, r.elements[++i], /*resp3=*/true, depth + 1);
    lua_settable(L, -3);
  }
  if (map || set) lua_settable(L, -3);
}

// ---- Reply conversion, Lua -> Redis (the script's return value) ----
// Tables are read with raw access: a metamethod must not run outside the protected call.
int LuaHost::Internal::raw_field_type(lua_State* L, int table, const char* field) {
  lua_pushstring(L, field);
  lua_rawget(L, table);
  return lua_type(L, -1);
}

Reply LuaHost::Internal::to_reply(lua_State* L, int idx, int depth) {
  if (idx < 0) idx = lua_gettop(L) + idx + 1;
  switch (lua_type(L, idx)) {
    case LUA_TSTRING:
      return Reply::bulk(to_view(L, idx));
    case LUA_TBOOLEAN:
      // RESP2 scripts: true is 1, false a nil; RESP3 scripts return booleans.
      if (host(L).script_client_.resp3()) return Reply::boolean(lua_toboolean(L, idx) != 0);
      return lua_toboolean(L, idx) ? Reply::integer_of(1) : Reply::nil();
    case LUA_TNUMBER:
      return Reply::integer_of(lua_number_to_int64(lua_tonumber(L, idx)));
    case LUA_TTABLE:
      if (depth >= kMaxReplyDepth || !lua_checkstack(L, 6)) {
        return Reply::error("ERR reached lua stack limit");
      }
      return table_to_reply(L, idx, depth);
    default:
      return Reply::nil();
  }
}

Reply LuaHost::Internal::table_to_reply(lua_State* L, int t, int depth) {
  const int top = lua_gettop(L);
  Reply out;
  if (!special_table_to_reply(L, t, depth, &out)) {
    lua_settop(L, top);
    std::vector<Reply> items;
    // An array: elements 1, 2, ... up to the first nil.
    for (int j = 1;; j++) {
      lua_rawgeti(L, t, j);
      if (lua_isnil(L, -1)) break;
      items.push_back(to_reply(L, -1, depth + 1));
      lua_pop(L, 1);
    }
    out = Reply::array(std::move(items));
  }
  lua_settop(L, top);
  return out;
}

// The single-field tables, checked in Redis's order: err, ok, double, big_number,
// verbatim_string, map, set. Returns false for a plain array.
bool LuaHost::Internal::special_table_to_reply(lua_State* L, int t, int depth, Reply* out) {
  const int top = lua_gettop(L);
  if (raw_field_type(L, t, "err") == LUA_TSTRING) {
    *out = Reply::error(sanitize_error(std::string(c_string_view(to_view(L, -1)))));
    return true;
  }
  lua_settop(L, top);
  if (raw_field_type(L, t, "ok") == LUA_TSTRING) {
    *out = Reply::status(map_crlf(c_string_view(to_view(L, -1))));
    return true;
  }
  lua_settop(L, top);
  if (raw_field_type(L, t, "double") == LUA_TNUMBER) {
    *out = Reply::double_of(lua_tonumber(L, -1));
    return true;
  }
  lua_settop(L, top);
  if (raw_field_type(L, t, "big_number") == LUA_TSTRING) {
    *out = Reply::big_number(map_crlf(to_view(L, -1)));
    return true;
  }
  lua_settop(L, top);
  if (raw_field_type(L, t, "verbatim_string") == LUA_TTABLE &&
      verbatim_to_reply(L, lua_gettop(L), out)) {
    return true;
  }
  lua_settop(L, top);
  if (raw_field_type(L, t, "map") == LUA_TTABLE) {
    *out = pairs_to_reply(L, lua_gettop(L), depth, /*values=*/true);
    return true;
  }
  lua_settop(L, top);
  if (raw_field_type(L, t, "set") == LUA_TTABLE) {
    *out = pairs_to_reply(L, lua_gettop(L), depth, /*values=*/false);
    return true;
  }
  return false;
}

// The format is read as a C string (up to a NUL), the text whole.
bool LuaHost::Internal::verbatim_to_reply(lua_State* L, int v, Reply* out) {
  if (raw_field_type(L, v, "format") != LUA_TSTRING) return false;
  const std::string_view format = to_view(L, -1);
  if (raw_field_type(L, v, "string") != LUA_TSTRING) return false;
  *out = Reply::verbatim(format, to_view(L, -1));
  return true;
}

// A map (keys and values) or a set (keys), in lua_next order.
Reply LuaHost::Internal::pairs_to_reply(lua_State* L, int m, int depth, bool values) {
  std::vector<Reply> items;
  lua_pushnil(L);
  while (lua_next(L, m) != 0) {
    items.push_back(to_reply(L, -2, depth + 1));
    if (values) items.push_back(to_reply(L, -1, depth + 1));
    lua_pop(L, 1);
  }
  return values ? Reply::map(std::move(items)) : Reply::set(std::move(items));
}

// ---- LuaHost ------------------------------------------------------------------------------

LuaHost::LuaHost(Server& server, Rand48& rand, uint64_t instruction_budget,
                 size_t memory_limit_bytes)
    : server_(server), rand_(rand), budget_(instruction_budget), memory_limit_(memory_limit_bytes) {
  LS_ASSERT(instruction_budget > 0);
  LS_ASSERT(memory_limit_bytes > 0);
  // Out of memory here (the arena could map nothing: an address-space limit) is the process's:
  // std::bad_alloc, which the command reports as running out of memory.
  L_ = lua_newstate(Internal::alloc, this);
  if (L_ == nullptr) throw std::bad_alloc();
  lua_atpanic(L_, Internal::panic);
  const int opened = lua_cpcall(
      L_, [](lua_State* L) {
        static_cast<LuaHost*>(lua_touserdata(L, 1))->open_sandbox();
        return 0;
      },
      this);
  if (opened != 0) {
    LS_ASSERT(opened == LUA_ERRMEM);
    lua_close(L_);
    throw std::bad_alloc();
  }
  LS_ASSERT(lua_gettop(L_) == 0);
}

LuaHost::~LuaHost() {
  LS_ASSERT(!running_);
  lua_close(L_);
}

namespace {

void open_lib(lua_State* L, const char* name, lua_CFunction open) {
  lua_pushcfunction(L, open);
  lua_pushstring(L, name);
  lua_call(L, 1, 0);
}

void set_function(lua_State* L, int table, const char* name, lua_CFunction fn) {
  lua_pushstring(L, name);
  lua_pushcfunction(L, fn);
  lua_rawset(L, table);
}

void set_number(lua_State* L, int table, const char* name, lua_Number value) {
  lua_pushstring(L, name);
  lua_pushnumber(L, value);
  lua_rawset(L, table);
}

// redis.log, the LOG_* levels and REDIS_VERSION(_NUM), in the order Redis adds them (a table's
// iteration order follows it): shared by the scripts' redis table and the functions' load API.
void set_log_and_version(lua_State* L, int table) {
  set_function(L, table, "log", LuaHost::Internal::log);
  set_number(L, table, "LOG_DEBUG", 0);
  set_number(L, table, "LOG_VERBOSE", 1);
  set_number(L, table, "LOG_NOTICE", 2);
  set_number(L, table, "LOG_WARNING", 3);
  set_number(L, table, "REDIS_VERSION_NUM", 0x07000f);
  lua_pushliteral(L, "REDIS_VERSION");
  lua_pushliteral(L, "7.0.15");
  lua_rawset(L, table);
}

// Reading a missing field of the table at `table` raises Redis's nonexistent-global error.
void set_missing_global_metatable(lua_State* L, int table) {
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, LuaHost::Internal::missing_global);
  lua_setfield(L, -2, "__index");
  lua_setmetatable(L, table);
}

}  // namespace

void LuaHost::open_sandbox() {
  lua_State* L = L_;
  open_lib(L, "", luaopen_base);  // also opens coroutine
  open_lib(L, LUA_TABLIBNAME, luaopen_table);
  open_lib(L, LUA_STRLIBNAME, luaopen_string);
  open_lib(L, LUA_MATHLIBNAME, luaopen_math);

  // tostring prints no addresses: a script's reply, and so the history, must not depend on them.
  install_deterministic_tostring(L, "");
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  const int g = lua_gettop(L);
  // Keep tostring for the error handler (a script cannot reach the registry).
  lua_getfield(L, g, "tostring");
  lua_setfield(L, LUA_REGISTRYINDEX, "lockstep.tostring");
  // What Redis 7.0 removes from the globals.
  for (const char* name : {"dofile", "loadfile", "print", "getfenv", "setfenv", "newproxy"}) {
    lua_pushstring(L, name);
    lua_pushnil(L);
    lua_rawset(L, g);
  }
  set_function(L, g, "pcall", Internal::pcall);
  set_function(L, g, "next", Internal::next);
  set_function(L, g, "pairs", Internal::pairs);
  set_function(L, g, "rawget", Internal::rawget);
  set_function(L, g, "rawset", Internal::rawset);
  set_function(L, g, "setmetatable", Internal::setmetatable);
  set_function(L, g, "getmetatable", Internal::getmetatable);
  set_function(L, g, "loadstring", Internal::loadstring);
  set_function(L, g, "load", Internal::load);

  lua_getfield(L, g, LUA_MATHLIBNAME);
  set_function(L, lua_gettop(L), "random", Internal::math_random);
  set_function(L, lua_gettop(L), "randomseed", Internal::math_randomseed);
  lua_pop(L, 1);

  // The redis table.
  lua_newtable(L);
  const int r = lua_gettop(L);
  set_function(L, r, "call", Internal::redis_call);
  set_function(L, r, "pcall", Internal::redis_pcall);
  set_log_and_version(L, r);
  set_function(L, r, "setresp", Internal::setresp);
  set_function(L, r, "sha1hex", Internal::sha1hex);
  set_function(L, r, "error_reply", Internal::error_reply);
  set_function(L, r, "status_reply", Internal::status_reply);
  set_function(L, r, "set_repl", Internal::set_repl);
  set_number(L, r, "REPL_NONE", 0);
  set_number(L, r, "REPL_AOF", 1);
  set_number(L, r, "REPL_SLAVE", 2);
  set_number(L, r, "REPL_REPLICA", 2);
  set_number(L, r, "REPL_ALL", 3);
  set_function(L, r, "replicate_commands", Internal::replicate_commands);
  set_function(L, r, "breakpoint", Internal::breakpoint);
  set_function(L, r, "debug", Internal::debug);
  set_function(L, r, "acl_check_cmd", Internal::acl_check_cmd);
  lua_setfield(L, g, "redis");

  lua_pushcfunction(L, Internal::error_handler);
  error_handler_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_createtable(L, 0, 1);
  lua_pushcfunction(L, Internal::arg_newindex);
  lua_setfield(L, -2, "__newindex");
  arg_mt_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);

  // Read-only proxies: proxy -> real table, for next/pairs/rawget/rawset/setmetatable.
  lua_newtable(L);
  readonly_index_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  // The value getmetatable() returns for a proxy: an empty read-only table.
  lua_newtable(L);
  lua_newtable(L);
  lua_pushcfunction(L, Internal::readonly_newindex);
  lua_setfield(L, -2, "__newindex");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  const int ro_empty = lua_gettop(L);
  // Replaces the table at `real` by a proxy, pushed on the stack.
  auto make_readonly = [&](int real) {
    lua_newtable(L);                  // proxy
    lua_createtable(L, 0, 3);         // its metatable
    lua_pushvalue(L, real);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, Internal::readonly_newindex);
    lua_setfield(L, -2, "__newindex");
    lua_pushvalue(L, ro_empty);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, readonly_index_ref_);
    lua_pushvalue(L, -2);
    lua_pushvalue(L, real);
    lua_rawset(L, -3);
    lua_pop(L, 1);
  };
  for (const char* lib : {"string", "table", "math", "coroutine", "redis"}) {
    lua_getfield(L, g, lib);
    make_readonly(lua_gettop(L));
    lua_setfield(L, g, lib);
    lua_pop(L, 1);
  }
  // ("x"):upper() goes through the string metatable: make it use the proxy too, so that
  // getmetatable("").__index == string holds as in Redis. The metatable itself is shared by
  // every script: getmetatable("") hands out a read-only proxy of it, so that no script can
  // change what ARGV[1]:sub() means for the next one (Redis 7.0 makes it read-only too).
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1);
  lua_getfield(L, g, "string");
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, -1);
  string_mt_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  make_readonly(lua_gettop(L));
  string_mt_proxy_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_pop(L, 2);
  // Reading a missing global is an error.
  set_missing_global_metatable(L, g);
  // The globals scripts see: a proxy of the real globals; _G names it too.
  make_readonly(g);
  const int globals_proxy = lua_gettop(L);
  lua_pushvalue(L, -1);
  lua_setfield(L, g, "_G");
  lua_pushvalue(L, g);
  real_globals_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);

  // Functions' load environment (Redis's library API): globals of just `redis`, whose table
  // holds register_function, log, the log levels and the version; both raise the
  // nonexistent-global error for anything else, and both are read-only.
  lua_newtable(L);
  const int lib_redis = lua_gettop(L);
  set_function(L, lib_redis, "register_function", Internal::register_function);
  set_log_and_version(L, lib_redis);
  set_missing_global_metatable(L, lib_redis);
  make_readonly(lib_redis);
  lua_newtable(L);
  const int lib_globals = lua_gettop(L);
  lua_pushvalue(L, -2);
  lua_setfield(L, lib_globals, "redis");
  set_missing_global_metatable(L, lib_globals);
  make_readonly(lib_globals);
  library_api_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  // The environment of library code and callbacks: reads go to the globals (or, while loading,
  // to the library API), writes are refused, and it counts as a read-only view of the globals
  // for rawset/next/pairs.
  make_readonly(globals_proxy);
  const int env = lua_gettop(L);
  lua_getmetatable(L, env);
  function_env_mt_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_rawgeti(L, LUA_REGISTRYINDEX, readonly_index_ref_);
  lua_pushvalue(L, env);
  lua_pushvalue(L, g);
  lua_rawset(L, -3);
  lua_pop(L, 1);
  function_env_ref_ = luaL_ref(L, LUA_REGISTRYINDEX);
  lua_settop(L, globals_proxy);
  lua_replace(L, LUA_GLOBALSINDEX);
  lua_settop(L, 0);
  lua_sethook(L, Internal::count_hook, LUA_MASKCOUNT, kHookPeriod);
}

namespace {

// Scripts compiled to Lua's binary chunk form (string.dump's), by source text, for every host
// of the process: each node of each seed of an exploration compiles the same few scripts, and
// loading a binary chunk costs a fraction of parsing the text. Lookup only, never iterated.
class ChunkCache {
 public:
  // At most this many bytes of chunks are kept; a script past it is compiled every time.
  static constexpr size_t kMaxBytes = size_t{16} << 20;

  // The chunk compiled from `body`, or nullptr when it was never stored.
  std::shared_ptr<const std::string> find(std::string_view body) {
    std::lock_guard<std::mutex> lock(mu_);
    const auto it = chunks_.find(body);
    return it == chunks_.end() ? nullptr : it->second;
  }
  void store(std::string_view body, std::shared_ptr<const std::string> chunk) {
    std::lock_guard<std::mutex> lock(mu_);
    const size_t size = body.size() + chunk->size();
    if (bytes_ + size > kMaxBytes) return;
    if (chunks_.emplace(std::string(body), std::move(chunk)).second) bytes_ += size;
  }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view text) const { return std::hash<std::string_view>()(text); }
  };
  std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const std::string>, Hash, std::equal_to<>> chunks_;
  size_t bytes_ = 0;
};

ChunkCache& chunk_cache() {
  static ChunkCache* cache = new ChunkCache();  // never destroyed: hosts may outlive statics
  return *cache;
}

int append_chunk(lua_State*, const void* bytes, size_t n, void* out) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(bytes), n);
  return 0;
}

// Parses `body` (chunk name "@user_script") in a state of its own and returns its binary form,
// or nullptr with Lua's message in *error.
std::shared_ptr<const std::string> precompile(std::string_view body, std::string* error) {
  lua_State* L = luaL_newstate();
  LS_ASSERT(L != nullptr);
  std::shared_ptr<std::string> chunk;
  if (luaL_loadbuffer(L, body.data(), body.size(), "@user_script") != 0) {
    *error = std::string(to_view(L, -1));
  } else {
    chunk = std::make_shared<std::string>();
    const int dumped = lua_dump(L, append_chunk, chunk.get());
    LS_ASSERT(dumped == 0);
  }
  lua_close(L);
  return chunk;
}

}  // namespace

bool LuaHost::compile(std::string_view body, int* ref, std::string* error) {
  LS_ASSERT(!running_);
  LS_ASSERT(lua_gettop(L_) == 0);
  // Redis refuses precompiled chunks (string.dump output): a patched one passes Lua 5.1's
  // verifier and confuses types, the first step of the known sandbox escapes. Its parser then
  // reports the escape byte; a text chunk of a space and that byte gives the same message.
  if (!body.empty() && body[0] == LUA_SIGNATURE[0]) body = std::string_view(" \x1b", 2);
  // The text is parsed in a state of its own (or found parsed in the process's cache) and
  // this host loads the binary chunk of it, the only kind this function ever loads here:
  // so the host's state (its memory, what collectgarbage("count") tells a script) is the same
  // whether or not the process compiled the script before.
  std::shared_ptr<const std::string> chunk = chunk_cache().find(body);
  if (chunk == nullptr) {
    chunk = precompile(body, error);
    if (chunk == nullptr) return false;
    chunk_cache().store(body, chunk);
  }
  if (luaL_loadbuffer(L_, chunk->data(), chunk->size(), "@user_script") != 0) {  // out of memory
    *error = std::string(to_view(L_, -1));
    lua_settop(L_, 0);
    return false;
  }
  *ref = luaL_ref(L_, LUA_REGISTRYINDEX);
  return true;
}

std::vector<int> LuaHost::code_lines(std::string_view body) {
  std::vector<int> lines;
  lua_State* L = luaL_newstate();
  LS_ASSERT(L != nullptr);
  lua_Debug ar;
  if (luaL_loadbuffer(L, body.data(), body.size(), "@code_lines") == 0 &&
      lua_getinfo(L, ">L", &ar) != 0 && lua_istable(L, -1)) {
    lua_pushnil(L);
    while (lua_next(L, -2) != 0) {  // {line = true}
      if (lua_type(L, -2) == LUA_TNUMBER) lines.push_back(static_cast<int>(lua_tointeger(L, -2)));
      lua_pop(L, 1);
    }
  }
  lua_close(L);
  std::sort(lines.begin(), lines.end());
  return lines;
}

void LuaHost::release(int ref) {
  LS_ASSERT(!running_);
  luaL_unref(L_, LUA_REGISTRYINDEX, ref);
}

void LuaHost::prepare_arg_table(ArgTable& t, const char* name, Args items) {
  lua_State* L = L_;
  if (t.ref == LUA_NOREF) {
    // A new table, published as the global `name`.
    lua_createtable(L, static_cast<int>(items.size()), 0);
    lua_rawgeti(L, LUA_REGISTRYINDEX, arg_mt_ref_);
    lua_setmetatable(L, -2);
    lua_rawgeti(L, LUA_REGISTRYINDEX, real_globals_ref_);
    lua_pushstring(L, name);
    lua_pushvalue(L, -3);
    lua_rawset(L, -3);
    lua_pop(L, 1);
    t.ref = luaL_ref(L, LUA_REGISTRYINDEX);
    t.size = 0;
  }
  lua_rawgeti(L, LUA_REGISTRYINDEX, t.ref);
  for (size_t i = 0; i < items.size(); i++) {
    lua_pushlstring(L, items[i].data(), items[i].size());
    lua_rawseti(L, -2, static_cast<int>(i + 1));
  }
  // Elements left from a longer previous run.
  for (int i = static_cast<int>(items.size()) + 1; i <= t.size; i++) {
    lua_pushnil(L);
    lua_rawseti(L, -2, i);
  }
  t.size = static_cast<int>(items.size());
  lua_pop(L, 1);
}

void LuaHost::check_arg_table(ArgTable& t) {
  lua_State* L = L_;
  LS_ASSERT(t.ref != LUA_NOREF);
  lua_rawgeti(L, LUA_REGISTRYINDEX, t.ref);
  // Changing the metatable (setmetatable) or adding a key (__newindex, rawset) set arg_dirty_;
  // table.insert and table.remove show in the length.
  const bool intact = !arg_dirty_ && lua_objlen(L, -1) == static_cast<size_t>(t.size);
  lua_pop(L, 1);
  if (!intact) {
    // The script changed the table beyond its elements: the next run gets a new one.
    luaL_unref(L, LUA_REGISTRYINDEX, t.ref);
    t.ref = LUA_NOREF;
  }
}

bool LuaHost::load_library(std::string_view code, std::vector<RegisteredFunction>* out, std::string* error) {
  LS_ASSERT(!running_);
  LS_ASSERT(lua_gettop(L_) == 0);
  lua_State* L = L_;
  out->clear();
  if (!code.empty() && code[0] == LUA_SIGNATURE[0]) code = std::string_view(" \x1b", 2);
  if (luaL_loadbuffer(L, code.data(), code.size(), "@user_function") != 0) {
    *error = "Error compiling function: " + std::string(to_view(L, -1));
    lua_settop(L, 0);
    return false;
  }
  // The chunk, and every closure it creates, lives in the functions' environment; while it runs
  // that environment shows the library API.
  lua_rawgeti(L, LUA_REGISTRYINDEX, function_env_ref_);
  lua_setfenv(L, -2);
  auto set_env_index = [&](int ref) {
    lua_rawgeti(L, LUA_REGISTRYINDEX, function_env_mt_ref_);
    lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
    lua_setfield(L, -2, "__index");
    lua_pop(L, 1);
  };
  set_env_index(library_api_ref_);
  registering_ = out;
  killed_ = false;
  killed_by_user_ = false;
  instructions_ = 0;
  lua_sethook(L, Internal::count_hook, LUA_MASKCOUNT, kHookPeriod);
  limit_memory_ = true;
  const int rc = lua_pcall(L, 0, 0, 0);
  limit_memory_ = false;
  registering_ = nullptr;
  std::string msg;
  if (rc != 0) {
    // A string error is prefixed as Redis's luaExtractErrorInformation does; a table's `err`.
    msg = "ERR unknown error";
    if (lua_isstring(L, -1)) {
      msg = "ERR " + std::string(to_view(L, -1));
    } else if (lua_istable(L, -1) && Internal::raw_field_type(L, lua_gettop(L), "err") != LUA_TNIL &&
               lua_isstring(L, -1)) {
      msg = std::string(c_string_view(to_view(L, -1)));
    }
  }
  lua_settop(L, 0);
  lua_rawgeti(L, LUA_REGISTRYINDEX, function_env_mt_ref_);
  lua_pushvalue(L, LUA_GLOBALSINDEX);
  lua_setfield(L, -2, "__index");
  lua_pop(L, 1);
  if (rc != 0) {
    for (const RegisteredFunction& f : *out) luaL_unref(L, LUA_REGISTRYINDEX, f.ref);
    out->clear();
    *error = sanitize_error("Error registering functions: " + msg);
    lua_gc(L, LUA_GCCOLLECT, 0);
    return false;
  }
  return true;
}

Reply LuaHost::run(int ref, const ScriptRun& how, Client& caller, Args keys, Args args) {
  LS_ASSERT(how.name.size() == 40);
  return run_compiled(ref, how, caller, keys, args, /*as_function=*/false);
}

Reply LuaHost::call_function(int ref, const ScriptRun& how, Client& caller, Args keys, Args args) {
  return run_compiled(ref, how, caller, keys, args, /*as_function=*/true);
}

Reply LuaHost::run_compiled(int ref, const ScriptRun& how, Client& caller, Args keys, Args args, bool as_function) {
  LS_ASSERT(!running_);
  lua_State* L = L_;
  lua_settop(L, 0);
  running_ = true;
  running_function_ = as_function;
  run_ = &how;
  killed_ = false;
  killed_by_user_ = false;
  script_wrote_ = false;
  instructions_ = 0;
  propagate_effects_ = true;
  script_client_.db = caller.db;
  script_client_.id = caller.id;
  script_client_.resp = 2;  // every script starts in RESP2; redis.setresp(3) switches
  // Key expiry inside the script compares against the time the script started.
  server_.set_script_running(true, server_.mstime());
  counting_lines_ = line_counts_ != nullptr ? line_counts_->current : nullptr;
  lua_sethook(L, Internal::count_hook,
              LUA_MASKCOUNT | (counting_lines_ != nullptr ? LUA_MASKLINE : 0), kHookPeriod);
  lua_rawgeti(L, LUA_REGISTRYINDEX, error_handler_ref_);
  lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
  LS_ASSERT(lua_isfunction(L, -1));
  int nargs = 0;
  if (as_function) {
    // callback(keys, args): fresh tables every call, as Redis's luaCallFunction makes them.
    for (Args items : {keys, args}) {
      lua_createtable(L, static_cast<int>(items.size()), 0);
      for (size_t i = 0; i < items.size(); i++) {
        lua_pushlstring(L, items[i].data(), items[i].size());
        lua_rawseti(L, -2, static_cast<int>(i + 1));
      }
    }
    nargs = 2;
  } else {
    arg_dirty_ = false;
    prepare_arg_table(keys_table_, "KEYS", keys);
    prepare_arg_table(argv_table_, "ARGV", args);
  }
  // By now the keys' table slots are likely cached (step 1 was at EVAL's start): load the nodes.
  for (size_t i = 0; i < keys.size() && i < kPrefetchKeys; i++) server_.db(caller.db).prefetch_node(keys[i]);
  limit_memory_ = true;
  int rc = lua_pcall(L, nargs, 1, 1);
  limit_memory_ = false;
  Reply reply;
  if (rc == 0) {
    reply = Internal::to_reply(L, -1, 0);
  } else if (lua_istable(L, -1)) {
    reply = script_error(L, how.name);
  } else {
    // Not a table: memory errors (the handler does not run for them) and errors inside the
    // handler. Redis words it "Error running script <name>, <message>".
    std::string msg = lua_isstring(L, -1) ? std::string(to_view(L, -1)) : "execution failure";
    if (rc == LUA_ERRMEM) {
      msg += " (lockstep Lua memory limit: " + std::to_string(memory_limit_) + " bytes)";
    }
    reply = Reply::error(
        sanitize_error("ERR Error running script " + std::string(how.name) + ", " + msg.substr(0, 100)));
  }
  lua_settop(L, 0);
  if (!as_function) {
    check_arg_table(keys_table_);
    check_arg_table(argv_table_);
  }
  server_.set_script_running(false, 0);
  if (counting_lines_ != nullptr) {
    lua_sethook(L, Internal::count_hook, LUA_MASKCOUNT, kHookPeriod);
    counting_lines_ = nullptr;
  }
  running_ = false;
  run_ = nullptr;
  if (rc == LUA_ERRMEM || bytes_ > memory_limit_ / 2) lua_gc(L, LUA_GCCOLLECT, 0);
  return reply;
}

Reply LuaHost::script_error(lua_State* L, std::string_view sha) {
  // The error table built by the handler: {err=, source=, line=}.
  const int t = lua_gettop(L);
  std::string msg = "ERR unknown error";  // an error table without `err` (Redis 7.0.15 crashes)
  if (Internal::raw_field_type(L, t, "err") != LUA_TNIL && lua_isstring(L, -1)) {
    msg = std::string(c_string_view(to_view(L, -1)));
  }
  lua_settop(L, t);
  std::string source, line;
  bool has_source = Internal::raw_field_type(L, t, "source") != LUA_TNIL && lua_isstring(L, -1);
  if (has_source) source = std::string(c_string_view(to_view(L, -1)));
  lua_settop(L, t);
  bool has_line = Internal::raw_field_type(L, t, "line") != LUA_TNIL && lua_isstring(L, -1);
  if (has_line) line = std::string(to_view(L, -1));
  lua_settop(L, t);
  if (has_source && has_line) {
    msg += " script: " + std::string(sha) + ", on " + source + ":" + line + ".";
  }
  return Reply::error(sanitize_error(std::move(msg)));
}

}  // namespace lockstep::redis
