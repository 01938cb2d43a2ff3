// The algorithm registry. Each algorithm folder registers its algorithms with one CMake call
// (lockstep_add_algorithms in algorithms/CMakeLists.txt), from which the build generates
// registered_algorithms(); Lua files named by scenarios are found among the loaded ones.
#include <algorithm>

#include "algorithms/algorithm.h"
#include "algorithms/lua_client/lua_algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms {

// Generated: registered_algorithms.cc in the build tree.
std::vector<AlgorithmInfo> registered_algorithms();

namespace {

std::vector<AlgorithmInfo> build() {
  std::vector<AlgorithmInfo> all = registered_algorithms();
  std::sort(all.begin(), all.end(),
            [](const AlgorithmInfo& a, const AlgorithmInfo& b) { return a.name < b.name; });
  for (size_t i = 1; i < all.size(); ++i) LS_ASSERT(all[i - 1].name != all[i].name);
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
