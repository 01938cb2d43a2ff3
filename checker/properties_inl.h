// Template definitions for properties.h.
#ifndef LOCKSTEP_CHECKER_PROPERTIES_INL_H_
#define LOCKSTEP_CHECKER_PROPERTIES_INL_H_

#include <map>

namespace lockstep::checker {

template <typename T>
std::vector<std::pair<Sym, std::vector<uint32_t>>> group_by_lock(const Column<T>& items) {
  std::map<Sym, std::vector<uint32_t>> groups;  // ordered: output order must not depend on hashing
  for (uint32_t i = 0; i < items.size(); ++i) groups[items[i].lock].push_back(i);
  return {groups.begin(), groups.end()};
}

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_PROPERTIES_INL_H_
