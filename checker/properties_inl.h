// Template definitions for properties.h.
#ifndef LOCKSTEP_CHECKER_PROPERTIES_INL_H_
#define LOCKSTEP_CHECKER_PROPERTIES_INL_H_

#include <map>

namespace lockstep::checker {

template <typename T>
std::vector<std::pair<Sym, std::vector<uint32_t>>> group_by_lock(const Column<T>& items) {
  // Ordered by lock: output order must not depend on hashing. Counted first, so that each list
  // is allocated once at its size (a million operations: 4 MB, not up to twice that plus a copy).
  std::map<Sym, size_t> group_of;  // lock → its count, then its group's index
  for (uint32_t i = 0; i < items.size(); ++i) ++group_of[items[i].lock];
  std::vector<std::pair<Sym, std::vector<uint32_t>>> groups;
  groups.reserve(group_of.size());
  for (auto& [lock, n] : group_of) {
    groups.emplace_back(lock, std::vector<uint32_t>());
    groups.back().second.reserve(n);
    n = groups.size() - 1;
  }
  for (uint32_t i = 0; i < items.size(); ++i) groups[group_of.find(items[i].lock)->second].second.push_back(i);
  return groups;
}

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_PROPERTIES_INL_H_
