// Algorithms written in Lua: a lock client in a Lua file, loaded at run time (docs/lua-algorithms.md).
//
// A scenario names the file (`"algorithm": {"file": "my-lock.lua", "options": {...}}`, or a
// folder holding `lock.lua` and its server-side scripts). The file returns a table that declares
// the algorithm as a built-in one is declared (name, lock kind, options with defaults, scripts,
// coverage points) and gives its client side: acquire, release and, optionally, force_release.
// Those functions run inside the simulator as Lua coroutines of the client process's own Lua 5.1
// state, against the `lockstep` table, which mirrors algorithms::Runtime: commands and scripts to
// a node, pub/sub, sleep, the client's local clock and random stream, semaphores, background
// tasks, and notes into the history. Every wait is a yield to the simulator, so a Lua client is
// as deterministic as a C++ one.
//
// The sandbox: the base, string, table and math libraries only (no os, io, debug, package,
// require, load*, dofile, print, coroutine); math.random draws from the client's random stream;
// each stretch of Lua between two waits may run at most kInstructionBudget instructions, and one
// client's Lua state may hold at most kMemoryLimitBytes. An error in the user's Lua (or a budget
// exceeded) ends the run: the run fails with the file and line, and `lockstep run` exits 2.
#ifndef LOCKSTEP_ALGORITHMS_LUA_CLIENT_LUA_ALGORITHM_H_
#define LOCKSTEP_ALGORITHMS_LUA_CLIENT_LUA_ALGORITHM_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "algorithms/algorithm.h"
#include "sim/core/status.h"

namespace lockstep::algorithms::lua_client {

inline constexpr uint64_t kInstructionBudget = 100'000'000;  // per stretch between two waits
inline constexpr size_t kMemoryLimitBytes = size_t{64} << 20;  // per client process
inline constexpr uint64_t kMaxFileBytes = uint64_t{1} << 20;   // the client file, each script

// Loads the algorithm at `path` (a .lua file, or a folder with lock.lua), checks its declaration
// and registers it, so find_algorithm() finds it by its declared name from then on. Loading the
// same file again returns the same entry. Errors name the file (and line, for Lua errors): a
// missing or unreadable file, Lua that does not compile or fails while loading, a declaration
// that is incomplete or wrong, a name already taken by a built-in or another file.
Result<const AlgorithmInfo*> load_lua_algorithm(const std::string& path);

// A loaded algorithm by its declared name, or nullptr (find_algorithm() asks here after the
// built-in ones).
const AlgorithmInfo* find_loaded(std::string_view name);

// The file an algorithm was loaded from (its canonical path), or "" for a built-in one.
std::string algorithm_file(std::string_view name);

// Lua algorithms built into lockstep (the ecosystem's locks, docs/algorithms.md), each an
// embedded Lua source with its name; the generated registry (algorithms/CMakeLists.txt,
// lockstep_add_algorithms LUA_ALGORITHMS) lists them with the C++ ones.
AlgorithmInfo builtin_lua_algorithm(const char* chunk_name, std::string_view source);

}  // namespace lockstep::algorithms::lua_client

#endif  // LOCKSTEP_ALGORITHMS_LUA_CLIENT_LUA_ALGORITHM_H_
