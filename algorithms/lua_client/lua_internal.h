// Internals shared by the Lua algorithm's definition (lua_algorithm.cc) and its client side
// (lua_client.cc). Not part of lockstep's interface.
#ifndef LOCKSTEP_ALGORITHMS_LUA_CLIENT_LUA_INTERNAL_H_
#define LOCKSTEP_ALGORITHMS_LUA_CLIENT_LUA_INTERNAL_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <lua.hpp>
#include <nlohmann/json.hpp>

#include "algorithms/algorithm.h"
#include "sim/core/status.h"

namespace lockstep::algorithms::lua_client {

// One declared option: its type comes from its default.
struct OptionSpec {
  enum class Type : uint8_t { kInteger, kBoolean, kString };
  std::string name;
  Type type = Type::kInteger;
  nlohmann::json default_value;
  int64_t min = INT64_MIN / 2;  // kInteger
  int64_t max = INT64_MAX / 2;
  std::vector<std::string> values;  // kString: the allowed values (empty: any)
};

// A declared script that never grants (grants = { release = "never" }; "never" in the header).
inline constexpr int64_t kNeverGrants = INT64_MIN + 2;

// What a Lua algorithm file declares, read once when it is loaded.
struct Definition {
  std::string file;        // canonical path ("" for an embedded one)
  std::string chunk_name;  // "@<path>": Lua's messages then read "<path>:<line>: ..."
  std::string source;
  std::string name;
  std::string kind = "simple";
  std::string description;
  bool fair = false;
  bool independent_masters = false;
  std::vector<OptionSpec> options;  // by name
  std::deque<std::string> script_names;  // stable storage for Script::name
  std::deque<std::string> script_bodies;
  std::deque<Script> scripts;            // in name order
  std::vector<std::string> coverage;     // declared coverage points
  bool has_force_release = false;
  // default_lease_ms: a fixed lease, or the name of an integer option holding it (-1 and "":
  // none declared; an acquisition without a lease is then kept by a watchdog).
  int64_t default_lease_ms = -1;
  std::string default_lease_option;
  bool renews = false;  // `renews = true`: the client refreshes its default lease while it holds
  std::string renews_option;  // `renews = "auto_renewal"`: it does when that boolean option is true
  // grants: script name -> the integer reply by which a node grants (kAbsent: nil; kNeverGrants:
  // never), for the quorum property (the history header's grant_replies).
  std::map<std::string, int64_t> grants;

  const Script* script(std::string_view name) const;
  // The file as messages name it (the chunk name without its '@').
  std::string shown() const { return chunk_name.substr(1); }
  // `message` with the file in front, unless it starts with it already (Lua's own messages do).
  std::string named(const std::string& message) const {
    return message.rfind(shown(), 0) == 0 ? message : shown() + ": " + message;
  }
};

// The client side: one per client process, with its own Lua state. REQUIRES: validated options.
std::unique_ptr<LockClient> make_lua_client(std::shared_ptr<const Definition> def, Runtime& rt,
                                            const nlohmann::json& options);

// Runs the file's source in a fresh sandbox with no client (docs/lua-algorithms.md "The
// sandbox"; `lockstep.options` holds `options`) and calls `read` with the value it returned on
// top of the stack. Errors name the file and line.
Status with_loaded_module(const Definition& def, const nlohmann::json& options,
                          const std::function<Status(lua_State*)>& read);

}  // namespace lockstep::algorithms::lua_client

#endif  // LOCKSTEP_ALGORITHMS_LUA_CLIENT_LUA_INTERNAL_H_
