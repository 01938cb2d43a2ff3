// The algorithm registry. To add an algorithm, add one line to the list below (a C++ one), or
// embed its Lua file and add one line (a Lua one, docs/lua-algorithms.md).
#include <algorithm>

#include "algorithms/baseline/set_nx_px.h"
#include "algorithms/baseline/setnx_naive.h"
#include "algorithms/lock_client.h"
#include "algorithms/lua_client/lua_algorithm.h"
#include "algorithms/redisson/redisson_lock.h"
#include "algorithms/redisson/redlock.h"
#include "algorithms/redlock_spec/redlock_spec.h"

namespace lockstep::algorithms {
namespace lua {
extern const std::string_view redsync;
extern const std::string_view node_redlock;
extern const std::string_view redis_py_lock;
extern const std::string_view redis_semaphore_mutex;
}  // namespace lua
namespace {

std::vector<AlgorithmInfo> build() {
  std::vector<AlgorithmInfo> all;
  all.push_back(baseline::set_nx_px_algorithm());
  all.push_back(redisson::redisson_lock_algorithm());
  all.push_back(redisson::redisson_fair_lock_algorithm());
  all.push_back(redisson::redisson_fenced_lock_algorithm());
  all.push_back(redisson::redisson_rwlock_algorithm());
  all.push_back(redisson::redisson_redlock_algorithm());
  all.push_back(redlock_spec::redlock_spec_algorithm());
  all.push_back(baseline::setnx_naive_algorithm());
  // The ecosystem's locks, in Lua (docs/algorithms.md).
  all.push_back(lua_client::builtin_lua_algorithm("redsync.lua", lua::redsync));
  all.push_back(lua_client::builtin_lua_algorithm("node_redlock.lua", lua::node_redlock));
  all.push_back(lua_client::builtin_lua_algorithm("redis_py_lock.lua", lua::redis_py_lock));
  all.push_back(lua_client::builtin_lua_algorithm("redis_semaphore_mutex.lua", lua::redis_semaphore_mutex));
  std::sort(all.begin(), all.end(),
            [](const AlgorithmInfo& a, const AlgorithmInfo& b) { return a.name < b.name; });
  return all;
}

}  // namespace

const std::vector<AlgorithmInfo>& algorithms() {
  static const std::vector<AlgorithmInfo> all = build();
  return all;
}

const AlgorithmInfo* find_algorithm(std::string_view name) {
  for (const AlgorithmInfo& info : algorithms()) {
    if (info.name == name) return &info;
  }
  return lua_client::find_loaded(name);
}

}  // namespace lockstep::algorithms
