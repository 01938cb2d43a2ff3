// The Lua 5.1 host: one sandboxed lua_State per node, the redis.* API, and the conversion of
// replies between Redis and Lua — in both directions, in this one place.
//
// The sandbox reproduces what Redis 7.0.15 gives scripts: the base, table, string, math and
// coroutine libraries without dofile/loadfile/print/setfenv/getfenv/newproxy; globals and
// library tables are read-only ("Attempt to modify a readonly table"), reading an undeclared
// global raises "Script attempted to access nonexistent global variable 'x'"; math.random uses
// Redis's 48-bit generator (rand48.h); pcall returns the `err` string of Redis error tables.
// Stock Lua 5.1 has no read-only tables, so scripts see read-only proxies (empty tables whose
// metatable forwards reads and refuses writes); next/pairs/rawget/rawset/setmetatable know them.
// The host counts instructions with a count hook and stops a script that exceeds its budget,
// and caps the memory of the Lua state. Lua errors are C++ exceptions (lua5.1-c++), so C++
// destructors run when a script error unwinds through redis.call.
#ifndef LOCKSTEP_SIM_REDIS_SCRIPT_LUA_H_
#define LOCKSTEP_SIM_REDIS_SCRIPT_LUA_H_

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/det_arena.h"
#include "sim/redis/rand48.h"
#include "sim/redis/reply.h"
#include "sim/redis/server.h"

struct lua_State;

namespace lockstep::redis {

// How a script runs: its digest (for error messages), whether it may write.
// How many of a script's KEYS are prefetched before it runs.
inline constexpr size_t kPrefetchKeys = 4;

struct ScriptRun {
  std::string_view name;  // EVAL: the body's digest (40 lowercase hex digits); FCALL: the function
  bool read_only = false;
};

// A function a library registered with redis.register_function while FUNCTION LOAD ran it.
struct RegisteredFunction {
  std::string name;
  std::optional<std::string> description;
  uint32_t flags = 0;  // ScriptFlag bits (eval.h): no-writes, allow-oom...
  int ref = 0;         // the callback in the Lua registry
};

class LuaHost {
 public:
  // REQUIRES: `server` and `rand` outlive the host.
  LuaHost(Server& server, Rand48& rand, uint64_t instruction_budget, size_t memory_limit_bytes);
  ~LuaHost();
  LuaHost(const LuaHost&) = delete;
  LuaHost& operator=(const LuaHost&) = delete;

  // Compiles a script body (chunk name "@user_script") and keeps the function. On success
  // returns true and sets *ref; otherwise sets *error to Lua's message.
  bool compile(std::string_view body, int* ref, std::string* error);
  // Forgets a compiled function.
  void release(int ref);

  // Runs a compiled function with KEYS and ARGV, as the caller `caller` (whose database the
  // script starts in). Returns the script's reply, or the error reply Redis would send.
  Reply run(int ref, const ScriptRun& how, Client& caller, Args keys, Args args);

  // ---- Redis 7.0 functions (a host of its own, as Redis gives functions their own Lua state) --
  // Runs a library's code (the text after its shebang line, chunk "@user_function") in the load
  // environment, where the globals hold only a `redis` table of register_function, log, the
  // LOG_* levels and the version; reading anything else raises the nonexistent-global error.
  // The functions it registered go to *out. On failure nothing stays registered and *error gets
  // Redis's reply text ("Error compiling function: ...", "Error registering functions: ...").
  // Loading is bounded by kLoadInstructionBudget, Redis's 500 ms load timeout made
  // deterministic ("FUNCTION LOAD timeout").
  static constexpr uint64_t kLoadInstructionBudget = 50'000'000;
  bool load_library(std::string_view code, std::vector<RegisteredFunction>* out, std::string* error);
  // Runs a registered function as FCALL does: callback(keys, args) with two fresh tables, under
  // the same rules, budget and error replies as a script ("script: <function name>, on
  // @user_function:<line>.").
  Reply call_function(int ref, const ScriptRun& how, Client& caller, Args keys, Args args);
  // Whether the running script is a function (FCALL) rather than an EVAL script.
  bool running_function() const { return running_ && running_function_; }

  // Instructions the last run executed (a multiple of the hook period).
  uint64_t last_instructions() const { return instructions_; }

  // Called from the instruction hook of a running script, every kHookPeriod instructions (so
  // about every 10 µs of Lua). `lockstep serve` installs one to keep serving other clients
  // (-BUSY) while a long script runs and to stop it on SCRIPT KILL: it returns true to kill the
  // script. The simulator installs none, so a run stays a pure function of its inputs.
  using BusyCheck = bool (*)(void* context);
  void set_busy_check(BusyCheck check, void* context) {
    busy_check_ = check;
    busy_context_ = context;
  }
  // Coverage: while set and counts->current is non-null, a script run counts the lines it
  // executes there (a line hook beside the instruction hook; the run itself is unchanged).
  void set_line_counts(LineCounts* counts) { line_counts_ = counts; }
  // The lines of `body`'s main chunk that hold code (Lua's active lines), in increasing order;
  // empty if it does not compile.
  static std::vector<int> code_lines(std::string_view body);

  // Whether the running script has written to the dataset (SCRIPT KILL refuses to stop it then).
  bool script_wrote() const { return script_wrote_; }
  bool script_running() const { return running_; }
  // Bytes currently held by the Lua state.
  size_t memory_bytes() const { return bytes_; }

  // ---- Used by the Lua C functions (script_lua.cc) -----------------------------------------
  struct Internal;

 private:
  friend struct Internal;
  void open_sandbox();
  // EVAL's run and FCALL's share everything but how KEYS and ARGV reach the Lua code.
  Reply run_compiled(int ref, const ScriptRun& how, Client& caller, Args keys, Args args, bool as_function);
  // The reply for a failed run whose error object (on top of the stack) is a table.
  Reply script_error(lua_State* L, std::string_view sha);

  Server& server_;
  Rand48& rand_;
  // The Lua state's memory: addresses that replay, so that `pairs` over keys that are tables or
  // functions visits them in the same order in every run (sim/core/det_arena.h).
  DetArena arena_{"redis-node"};
  lua_State* L_ = nullptr;
  const uint64_t budget_;
  const size_t memory_limit_;
  size_t bytes_ = 0;
  bool limit_memory_ = false;     // enforced only while a script runs (see the allocator)
  uint64_t instructions_ = 0;
  bool killed_ = false;
  bool killed_by_user_ = false;   // SCRIPT KILL, not the budget
  bool script_wrote_ = false;
  BusyCheck busy_check_ = nullptr;
  void* busy_context_ = nullptr;
  LineCounts* line_counts_ = nullptr;
  std::vector<uint64_t>* counting_lines_ = nullptr;  // the running script's line counts
  // Stops the running script for good: every thread of it (coroutines included) errors at its
  // next instruction, so no pcall or coroutine.resume can swallow the stop.
  void kill_running(lua_State* current);
  // KEYS and ARGV: reused from run to run while no script changed them beyond their elements
  // (fresh tables per run, as Redis makes, cost more than the script itself). A metatable marks
  // them; additions through __newindex or rawset, and setmetatable, set arg_dirty_; any other
  // change shows in the length, checked after each run. getmetatable() hides the marker.
  struct ArgTable {
    int ref = -2;  // LUA_NOREF until first use
    int size = 0;
  };
  void prepare_arg_table(ArgTable& t, const char* name, Args items);
  void check_arg_table(ArgTable& t);
  ArgTable keys_table_, argv_table_;
  int arg_mt_ref_ = 0;
  bool arg_dirty_ = false;
  int error_handler_ref_ = 0;
  int real_globals_ref_ = 0;
  int readonly_index_ref_ = 0;    // weak table: proxy -> the real table it guards
  int string_mt_ref_ = 0;         // the real metatable of strings
  int string_mt_proxy_ref_ = 0;   // what getmetatable("") returns: its read-only proxy
  // Functions: the environment of every library's code and callbacks, an empty read-only table
  // whose metatable's __index is the load environment while FUNCTION LOAD runs and the globals
  // otherwise (as Redis swaps the __index of its globals' metatable).
  int function_env_ref_ = 0;
  int function_env_mt_ref_ = 0;
  int library_api_ref_ = 0;
  std::vector<RegisteredFunction>* registering_ = nullptr;  // set while FUNCTION LOAD runs code
  // State of the running script.
  bool running_ = false;
  bool running_function_ = false;
  const ScriptRun* run_ = nullptr;
  Client script_client_;          // the script's own connection (its SELECTed database)
  bool propagate_effects_ = true;  // redis.set_repl(REPL_NONE) turns it off
  std::vector<Reply> call_replies_;
  std::vector<std::string_view> call_args_;
  std::vector<std::array<char, 32>> number_buffers_;
  // redis.call's command lookups: a script names its commands with the same few interned Lua
  // strings, so a small table indexed by the name's address answers most of them. An entry is
  // used only when its bytes equal the name's, so a reused address never gives a wrong command.
  struct CommandMemo {
    const Command* cmd = nullptr;
    uint8_t size = 0;
    std::array<char, 23> bytes{};
  };
  std::array<CommandMemo, 16> command_memo_{};
  const Command* script_command(std::string_view name);
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_SCRIPT_LUA_H_
