// Internal to the Lua host (script_lua.cc, script_sandbox.cc, script_api.cc): the C functions
// registered in the sandbox and the helpers they share. Not part of the model's interface.
#ifndef LOCKSTEP_SIM_REDIS_SCRIPT_LUA_INTERNAL_H_
#define LOCKSTEP_SIM_REDIS_SCRIPT_LUA_INTERNAL_H_

#include <lua.hpp>

#include <string>
#include <string_view>

#include "sim/redis/script_lua.h"

namespace lockstep::redis {

inline constexpr int kHookPeriod = 1000;      // instructions between two budget checks
inline constexpr int kMaxReplyDepth = 1000;   // nesting of a script's reply (cycles end here)
inline constexpr const char* kReadonlyError = "Attempt to modify a readonly table";

// A Lua string (or number, converted in place) as a view; empty for other types.
inline std::string_view to_view(lua_State* L, int idx) {
  size_t len = 0;
  const char* s = lua_tolstring(L, idx, &len);
  return s == nullptr ? std::string_view() : std::string_view(s, len);
}

// A C string view of a Lua string: Redis copies these with sdsnew, which stops at a NUL byte.
inline std::string_view c_string_view(std::string_view s) { return s.substr(0, s.find('\0')); }

// Pushes Redis's Lua error table {err = "<CODE> <message>"}, built from "-CODE message" or
// "message" (code ERR) as luaPushErrorBuff does; the message is trimmed of CR/LF at both ends.
void push_error_table(lua_State* L, std::string_view text);

// Marks the error table on top of the stack as already counted (Redis sets this field on errors
// of commands run by scripts; it is visible to scripts that inspect the table).
void mark_ignore_stats(lua_State* L);

struct LuaHost::Internal {
  // ---- script_lua.cc: the host's machinery and the reply conversion ----
  static LuaHost& host(lua_State* L);
  // The allocator: counts bytes and, while a script runs, refuses to grow past the limit (Lua
  // then raises "not enough memory"). Shrinking never fails, as Lua 5.1 requires.
  static void* alloc(void* ud, void* ptr, size_t osize, size_t nsize);
  static int panic(lua_State* L);
  // Instruction budget. Once spent, the hook fires on every instruction, so a script that
  // catches the error with pcall is stopped again at once (as Redis does after SCRIPT KILL).
  static void count_hook(lua_State* L, lua_Debug*);
  // The message handler of every script call (Redis's __redis__err__handler): turns the error
  // into a table {err=, source=, line=} naming the Lua line that raised it.
  static int error_handler(lua_State* L);
  // Reply conversion, Redis -> Lua, as the script's protocol (resp3: redis.setresp(3)) has it.
  // A C function starts with LUA_MINSTACK free slots; scalars need 3, aggregates check for more.
  static void push_reply(lua_State* L, const Reply& r, bool resp3, int depth);
  static void push_resp3_scalar(lua_State* L, const Reply& r);
  static void push_resp3_aggregate(lua_State* L, const Reply& r, int depth);
  // Reply conversion, Lua -> Redis (the script's return value).
  // Tables are read with raw access: a metamethod must not run outside the protected call.
  static int raw_field_type(lua_State* L, int table, const char* field);
  static Reply to_reply(lua_State* L, int idx, int depth);
  static Reply table_to_reply(lua_State* L, int t, int depth);
  // The single-field tables, checked in Redis's order: err, ok, double, big_number,
  // verbatim_string, map, set. Returns false for a plain array.
  static bool special_table_to_reply(lua_State* L, int t, int depth, Reply* out);
  static bool verbatim_to_reply(lua_State* L, int v, Reply* out);
  // A map (keys and values) or a set (keys), in lua_next order.
  static Reply pairs_to_reply(lua_State* L, int m, int depth, bool values);

  // ---- script_sandbox.cc: read-only proxies and Redis's replacements of base functions ----
  static bool push_real_if_proxy(lua_State* L, int idx);
  static int readonly_newindex(lua_State* L);
  static int missing_global(lua_State* L);
  static int next(lua_State* L);
  static int pairs(lua_State* L);
  static int rawget(lua_State* L);
  static int rawset(lua_State* L);
  static bool is_arg_table(lua_State* L, int idx);
  // __newindex of KEYS/ARGV: stores the value and marks the tables as changed.
  static int arg_newindex(lua_State* L);
  static int getmetatable(lua_State* L);
  static int setmetatable(lua_State* L);
  // Redis's pcall: a caught error table is replaced by its `err` string.
  static int pcall(lua_State* L);
  // Redis's Lua refuses binary chunks; its parser then reports the escape byte. A one-space
  // text chunk followed by that byte gives the same message under the same chunk name.
  static int load_text(lua_State* L, std::string_view code, const char* chunkname);
  static int loadstring(lua_State* L);
  static int load(lua_State* L);
  // ---- math.random / math.randomseed on Redis's generator ----
  static int math_random(lua_State* L);
  static int math_randomseed(lua_State* L);

  // ---- script_api.cc: the redis table ----
  // ---- redis.* ----
  static int raise_error(lua_State* L, std::string_view text);
  // Converts the call's arguments to strings (numbers as "%.17g", like Redis). False when one
  // is neither a string nor a number.
  static bool collect_args(lua_State* L, LuaHost& h, int argc);
  // Why the running script may not run this command, or empty (scriptCall's checks).
  static std::string_view refusal(LuaHost& h, const Command* cmd, Args argv);
  static int generic_call(lua_State* L, bool raise);
  static int redis_call(lua_State* L);
  static int redis_pcall(lua_State* L);
  static int sha1hex(lua_State* L);
  static int error_reply(lua_State* L);
  static int status_reply(lua_State* L);
  // redis.log goes nowhere: the model has no log file. Arguments are checked as Redis does.
  static int log(lua_State* L);
  // redis.register_function(name, callback) or redis.register_function{function_name=,
  // callback=, flags=, description=}, only while FUNCTION LOAD runs a library.
  static int register_function(lua_State* L);
  static int setresp(lua_State* L);
  static int set_repl(lua_State* L);
  static int replicate_commands(lua_State* L);
  static int breakpoint(lua_State* L);
  static int debug(lua_State*);
  static int acl_check_cmd(lua_State* L);
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_SCRIPT_LUA_INTERNAL_H_
