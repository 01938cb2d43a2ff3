// The algorithm registry. To add an algorithm, add one line to the list below.
#include <algorithm>

#include "algorithms/baseline/set_nx_px.h"
#include "algorithms/baseline/setnx_naive.h"
#include "algorithms/lock_client.h"
#include "algorithms/lua_client/lua_algorithm.h"
#include "algorithms/redisson/redisson_lock.h"
#include "algorithms/redisson/redlock.h"
#include "algorithms/redlock_spec/redlock_spec.h"

namespace lockstep::algorithms {
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
