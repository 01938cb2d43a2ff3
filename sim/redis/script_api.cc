// The redis table of the sandbox: redis.call/pcall (with scriptCall's checks and their exact
// error texts), error_reply/status_reply, sha1hex, log, setresp, set_repl and the rest.
#include <cstring>
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/eval.h"
#include "sim/redis/node.h"
#include "sim/redis/script_lua_internal.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

// ---- redis.* ----
int LuaHost::Internal::raise_error(lua_State* L, std::string_view text) {
  push_error_table(L, text);
  return lua_error(L);
}

// Converts the call's arguments to strings (numbers as "%.17g", like Redis). False when one
// is neither a string nor a number.
bool LuaHost::Internal::collect_args(lua_State* L, LuaHost& h, int argc) {
  h.call_args_.clear();
  if (h.number_buffers_.size() < static_cast<size_t>(argc)) h.number_buffers_.resize(argc);
  for (int j = 1; j <= argc; j++) {
    int t = lua_type(L, j);
    if (t == LUA_TNUMBER) {
      char* buf = h.number_buffers_[j - 1].data();
      size_t n = format_double_g17(lua_tonumber(L, j), buf);
      h.call_args_.emplace_back(buf, n);
    } else if (t == LUA_TSTRING) {
      h.call_args_.push_back(to_view(L, j));
    } else {
      return false;
    }
  }
  return true;
}

// Why the running script may not run this command, or empty (scriptCall's checks).
std::string_view LuaHost::Internal::refusal(LuaHost& h, const Command* cmd, Args argv) {
  if (cmd == nullptr) return "Unknown Redis command called from script";
  if (!arity_ok(cmd->arity, argv.size())) return "Wrong number of args calling Redis command from script";
  if (cmd->flags & kCmdContainer) {
    // Redis's lookup resolves subcommands for scripts too (COMMAND GETKEYS without its
    // arguments is an arity error there, OBJECT FOO an unknown command).
    const Subcommand* sub = nullptr;
    switch (resolve_subcommand(*cmd, argv, &sub)) {
      case SubcommandProblem::kNone: break;
      case SubcommandProblem::kUnknown: return "Unknown Redis command called from script";
      case SubcommandProblem::kArity: return "Wrong number of args calling Redis command from script";
      case SubcommandProblem::kNotModelled: return "lockstep model: this subcommand is not supported";
    }
  }
  if (cmd->flags & kCmdNoScript) return "This Redis command is not allowed from script";
  if (h.run_->read_only && (cmd->flags & (kCmdWrite | kCmdMayReplicate))) {
    return "Write commands are not allowed from read-only scripts.";
  }
  if ((cmd->flags & kCmdWrite) && h.server_.replica()) {
    return "-READONLY You can't write against a read only replica.";
  }
  return {};
}

int LuaHost::Internal::generic_call(lua_State* L, bool raise) {
  LuaHost& h = host(L);
  if (!h.running_) {
    return raise_error(L, "redis.call/pcall can only be called inside a script invocation");
  }
  int argc = lua_gettop(L);
  if (argc == 0) {
    push_error_table(L, "Please specify at least one argument for this redis lib call");
    return raise ? lua_error(L) : 1;
  }
  if (!collect_args(L, h, argc)) {
    push_error_table(L, "Lua redis lib command arguments must be strings or integers");
    return raise ? lua_error(L) : 1;
  }
  Args argv(h.call_args_);
  const Command* cmd = h.script_command(argv[0]);
  if (std::string_view why = refusal(h, cmd, argv); !why.empty()) {
    push_error_table(L, why);
    mark_ignore_stats(L);
    return raise ? lua_error(L) : 1;
  }
  h.call_replies_.clear();
  // From the first write on, SCRIPT KILL may not stop the script (Redis's UNKILLABLE).
  if (cmd->flags & kCmdWrite) h.script_wrote_ = true;
  {
    Call c(h.server_, h.script_client_, argv, h.call_replies_, cmd, /*script=*/true);
    c.propagate = h.propagate_effects_;
    h.server_.call(c);
  }
  LS_ASSERT(h.call_replies_.size() == 1);
  const Reply& reply = h.call_replies_.front();
  push_reply(L, reply, h.script_client_.resp3(), 0);
  if (raise && reply.is_error()) return lua_error(L);
  return 1;
}

const Command* LuaHost::script_command(std::string_view name) {
  CommandMemo& m = command_memo_[(reinterpret_cast<uintptr_t>(name.data()) >> 4) % command_memo_.size()];
  if (m.cmd != nullptr && m.size == name.size() && std::memcmp(m.bytes.data(), name.data(), name.size()) == 0) {
    return m.cmd;
  }
  const Command* cmd = lookup_command(name);
  if (cmd != nullptr && name.size() <= m.bytes.size()) {
    m.cmd = cmd;
    m.size = static_cast<uint8_t>(name.size());
    std::memcpy(m.bytes.data(), name.data(), name.size());
  }
  return cmd;
}

int LuaHost::Internal::redis_call(lua_State* L) { return generic_call(L, true); }

int LuaHost::Internal::redis_pcall(lua_State* L) { return generic_call(L, false); }

int LuaHost::Internal::sha1hex(lua_State* L) {
  if (lua_gettop(L) != 1) return raise_error(L, "wrong number of arguments");
  std::string digest = sha1_hex(to_view(L, 1));
  lua_pushlstring(L, digest.data(), digest.size());
  return 1;
}

int LuaHost::Internal::error_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "wrong number or type of arguments");
    return 1;
  }
  std::string_view err = c_string_view(to_view(L, 1));
  push_error_table(L, (!err.empty() && err[0] == '-') ? std::string(err) : "-" + std::string(err));
  return 1;
}

int LuaHost::Internal::status_reply(lua_State* L) {
  if (lua_gettop(L) != 1 || lua_type(L, -1) != LUA_TSTRING) {
    push_error_table(L, "wrong number or type of arguments");
    return 1;
  }
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "ok");
  lua_pushvalue(L, 1);
  lua_rawset(L, -3);
  return 1;
}

// redis.log goes nowhere: the model has no log file. Arguments are checked as Redis does.
namespace {

// A string or a number (lua_isstring), as Redis's luaGetStringSds reads it.
bool string_at(lua_State* L, int idx, std::string* out) {
  if (!lua_isstring(L, idx)) return false;
  size_t len = 0;
  const char* p = lua_tolstring(L, idx, &len);
  out->assign(p, len);
  return true;
}

// The array of flag names at `idx` (luaRegisterFunctionReadFlags). False on an unknown one.
bool read_function_flags(lua_State* L, int idx, uint32_t* flags) {
  uint32_t result = 0;
  for (int j = 1;; j++) {
    lua_pushinteger(L, j);
    lua_gettable(L, idx);
    if (lua_isnil(L, -1)) {
      lua_pop(L, 1);
      break;
    }
    std::string name;
    const bool is_string = string_at(L, -1, &name);
    lua_pop(L, 1);
    if (!is_string) return false;
    uint32_t found = 0;
    for (const ScriptFlagName& f : kScriptFlagNames) {
      if (iequals(f.name, name)) found = f.flag;
    }
    if (found == 0) return false;
    result |= found;
  }
  *flags = result;
  return true;
}

}  // namespace

int LuaHost::Internal::register_function(lua_State* L) {
  LuaHost& h = host(L);
  if (h.registering_ == nullptr) {
    return raise_error(L, "redis.register_function can only be called on FUNCTION LOAD command");
  }
  const int argc = lua_gettop(L);
  if (argc < 1 || argc > 2) return raise_error(L, "wrong number of arguments to redis.register_function");
  RegisteredFunction f;
  bool have_name = false;
  int callback = 0;  // stack index of the callback
  if (argc == 2) {
    if (!string_at(L, 1, &f.name)) return raise_error(L, "first argument to redis.register_function must be a string");
    if (!lua_isfunction(L, 2)) return raise_error(L, "second argument to redis.register_function must be a function");
    have_name = true;
    callback = 2;
  } else {
    if (!lua_istable(L, 1)) {
      return raise_error(L, "calling redis.register_function with a single argument is only applicable to Lua table "
                            "(representing named arguments).");
    }
    lua_settop(L, 1);
    lua_pushnil(L);  // slot 2: the callback, once found
    lua_pushnil(L);  // slot 3: the iteration key
    while (lua_next(L, 1) != 0) {
      // Stack: table, callback, key, value.
      if (!lua_isstring(L, -2)) return raise_error(L, "named argument key given to redis.register_function is not a string");
      std::string key;
      lua_pushvalue(L, -2);  // a copy, so that lua_tolstring leaves the iteration key alone
      string_at(L, -1, &key);
      lua_pop(L, 1);
      if (iequals(key, "function_name")) {
        if (!string_at(L, -1, &f.name)) {
          return raise_error(L, "function_name argument given to redis.register_function must be a string");
        }
        have_name = true;
      } else if (iequals(key, "description")) {
        std::string desc;
        if (!string_at(L, -1, &desc)) {
          return raise_error(L, "description argument given to redis.register_function must be a string");
        }
        f.description = std::move(desc);
      } else if (iequals(key, "callback")) {
        if (!lua_isfunction(L, -1)) {
          return raise_error(L, "callback argument given to redis.register_function must be a function");
        }
        lua_replace(L, 2);
        callback = 2;
        continue;
      } else if (iequals(key, "flags")) {
        if (!lua_istable(L, -1)) {
          return raise_error(L, "flags argument to redis.register_function must be a table representing function flags");
        }
        if (!read_function_flags(L, lua_gettop(L), &f.flags)) return raise_error(L, "unknown flag given");
      } else {
        return raise_error(L, "unknown argument given to redis.register_function");
      }
      lua_pop(L, 1);
    }
    if (!have_name) return raise_error(L, "redis.register_function must get a function name argument");
    if (callback == 0) return raise_error(L, "redis.register_function must get a callback argument");
  }
  if (!valid_function_name(f.name)) {  // whose message speaks of libraries for functions too
    return raise_error(L, "Library names can only contain letters, numbers, or underscores(_) and must be at least one "
                          "character long");
  }
  for (const RegisteredFunction& other : *h.registering_) {
    if (other.name == f.name) return raise_error(L, "Function already exists in the library");
  }
  lua_pushvalue(L, callback);
  f.ref = luaL_ref(L, LUA_REGISTRYINDEX);
  h.registering_->push_back(std::move(f));
  return 0;
}

int LuaHost::Internal::log(lua_State* L) {
  int argc = lua_gettop(L);
  if (argc < 2) return raise_error(L, "redis.log() requires two arguments or more.");
  if (!lua_isnumber(L, 1)) return raise_error(L, "First argument must be a number (log level).");
  int level = static_cast<int>(lua_tonumber(L, 1));
  if (level < 0 || level > 3) return raise_error(L, "Invalid debug level.");
  return 0;
}

int LuaHost::Internal::setresp(lua_State* L) {
  if (lua_gettop(L) != 1) return raise_error(L, "redis.setresp() requires one argument.");
  int resp = static_cast<int>(lua_tonumber(L, 1));
  if (resp != 2 && resp != 3) return raise_error(L, "RESP version must be 2 or 3.");
  // The script's own client: the replies of its later redis.call()s and the conversion of its
  // booleans follow this protocol, whatever the caller's.
  host(L).script_client_.resp = resp;
  return 0;
}

int LuaHost::Internal::set_repl(lua_State* L) {
  if (lua_gettop(L) != 1) return raise_error(L, "redis.set_repl() requires two arguments.");
  int flags = static_cast<int>(lua_tonumber(L, -1));
  if ((flags & ~3) != 0) {
    return raise_error(L, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
  }
  // The model has one effect stream: any target keeps propagating, REPL_NONE stops it.
  host(L).propagate_effects_ = flags != 0;
  return 0;
}

int LuaHost::Internal::replicate_commands(lua_State* L) {
  lua_pushboolean(L, 1);
  return 1;
}

int LuaHost::Internal::breakpoint(lua_State* L) {
  lua_pushboolean(L, 0);
  return 1;
}

int LuaHost::Internal::debug(lua_State*) { return 0; }

int LuaHost::Internal::acl_check_cmd(lua_State* L) {
  LuaHost& h = host(L);
  int argc = lua_gettop(L);
  if (argc == 0) return raise_error(L, "Please specify at least one argument for this redis lib call");
  if (!collect_args(L, h, argc)) {
    return raise_error(L, "Lua redis lib command arguments must be strings or integers");
  }
  if (lookup_command(h.call_args_[0]) == nullptr) {
    return raise_error(L, "Invalid command passed to redis.acl_check_cmd()");
  }
  lua_pushboolean(L, 1);  // the model has no ACLs: every command is permitted
  return 1;
}

}  // namespace lockstep::redis
