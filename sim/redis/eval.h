// EVAL, EVALSHA, their _RO forms and SCRIPT: the script cache and the rules around a run.
//
// Scripts are cached by the SHA-1 of their body (sha1_hex). A body may start with a shebang
// ("#!lua flags=no-writes,..."), parsed as Redis 7.0 does; without one the script runs in
// compatibility mode. SCRIPT FLUSH and a node restart replace the Lua state; the math.random
// generator survives SCRIPT FLUSH (it is process state in Redis) and is reset by a restart.
#ifndef LOCKSTEP_SIM_REDIS_EVAL_H_
#define LOCKSTEP_SIM_REDIS_EVAL_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "sim/redis/ordered_map.h"
#include "sim/redis/rand48.h"
#include "sim/redis/script_lua.h"
#include "sim/redis/server.h"
#include "sim/redis/sha_memo.h"

namespace lockstep::redis {

enum ScriptFlag : uint32_t {
  kScriptCompat = 1u << 0,  // no shebang: Redis's EVAL compatibility mode
  kScriptNoWrites = 1u << 1,
  kScriptAllowOom = 1u << 2,
  kScriptAllowStale = 1u << 3,
  kScriptNoCluster = 1u << 4,
  kScriptAllowCrossSlot = 1u << 5,
};

// The flags' names, in Redis's order (scripts_flags_def): what FUNCTION LIST prints.
struct ScriptFlagName {
  std::string_view name;
  uint32_t flag;
};
inline constexpr ScriptFlagName kScriptFlagNames[] = {
    {"no-writes", kScriptNoWrites},     {"allow-oom", kScriptAllowOom},
    {"allow-stale", kScriptAllowStale}, {"no-cluster", kScriptNoCluster},
    {"allow-cross-slot-keys", kScriptAllowCrossSlot},
};

// Redis's functionsVerifyName: letters, digits and '_', at least one (library and function names).
bool valid_function_name(std::string_view name);

// Parses a script's shebang line. Sets *flags and *shebang_len (0 without a shebang). Returns
// false with Redis's error text (without "ERR ") in *error.
bool parse_shebang(std::string_view body, uint32_t* flags, size_t* shebang_len, std::string* error);

class Scripting {
 public:
  static constexpr size_t kMaxCachedScripts = 1'000'000;

  Scripting(Server& server, uint64_t instruction_budget, size_t memory_limit_bytes);
  ~Scripting();

  // EVAL / EVALSHA / EVAL_RO / EVALSHA_RO.
  void eval(Call& c, bool by_sha, bool read_only_command);
  // SCRIPT LOAD / EXISTS / FLUSH / KILL / HELP.
  void script_command(Call& c);
  // The command flags of an EVAL call (WRITE unless a shebang declares no-writes).
  uint32_t eval_command_flags(Args argv, bool by_sha, uint32_t base_flags);

  // SCRIPT FLUSH: empties the cache and starts a new Lua state.
  void flush();
  // Node restart: flush() and the math.random generator back to its start state.
  void reset();
  size_t cached_scripts() const { return cache_.size(); }
  LuaHost& lua() { return *lua_; }

  // ---- Redis 7.0 functions (functions.cc) ----------------------------------------------------
  // FCALL / FCALL_RO.
  void fcall(Call& c, bool read_only_command);
  // FUNCTION LOAD / DELETE / FLUSH / LIST / STATS / KILL / HELP.
  void function_command(Call& c);
  // The command flags of an FCALL call (WRITE unless the function declares no-writes).
  uint32_t fcall_command_flags(Args argv, uint32_t base_flags) const;
  // FUNCTION FLUSH and a restart (the model keeps no functions across one: docs/serve.md).
  void flush_functions();
  // Installs `check` on both hosts, and on every host a flush creates later (LuaHost::BusyCheck).
  void set_busy_check(LuaHost::BusyCheck check, void* context);
  // The host running a script or function now, or nullptr.
  const LuaHost* running_host() const;

 private:
  struct Script {
    int ref = 0;        // the compiled function in the Lua registry
    uint32_t flags = 0;
  };
  // Finds or compiles `body`; its SHA-1 (hex) goes to `sha` either way. Returns nullptr after
  // replying an error.
  const Script* load(Call& c, std::string_view body, char (&sha)[40]);
  const Script* find(std::string_view sha) const;

  struct Function {
    RegisteredFunction registered;
    std::string library;
  };
  struct Library {
    std::string code;             // as loaded, shebang included (FUNCTION LIST WITHCODE)
    std::vector<std::string> functions;  // names, in registration order
  };
  void function_load(Call& c);
  void function_list(Call& c);
  void drop_library(const std::string& name);
  std::unique_ptr<LuaHost> make_host();

  Server& server_;
  const uint64_t budget_;
  const size_t memory_limit_;
  Rand48 rand_;
  std::unique_ptr<LuaHost> lua_;
  // Keys are 40 hex digits of a SHA-1, already uniformly spread: their first 8 bytes are the hash
  // (hashing all 40 bytes on every EVALSHA was ~3% of a script run).
  struct ShaHash {
    using is_transparent = void;
    size_t operator()(std::string_view sha) const {
      uint64_t h = sha.size();
      std::memcpy(&h, sha.data(), std::min<size_t>(sha.size(), sizeof(h)));
      return static_cast<size_t>(h);
    }
  };
  std::unordered_map<std::string, Script, ShaHash, StringEq> cache_;
  ShaMemo sha_memo_;  // EVAL bodies' digests: only the cost of hashing changes
  std::unique_ptr<LuaHost> function_lua_;  // functions' own Lua state, made by the first FUNCTION LOAD
  LuaHost::BusyCheck busy_check_ = nullptr;
  void* busy_context_ = nullptr;
  std::map<std::string, Library, std::less<>> libraries_;    // by name
  std::map<std::string, Function, std::less<>> functions_;   // by name, across libraries
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_EVAL_H_
