#include "sim/kernel/coverage.h"

#include <algorithm>

namespace lockstep::kernel {

Coverage::LineHits* Coverage::lines_for(const char* name) {
  for (const auto& [address, hits] : by_address_) {
    if (address == name) return hits;
  }
  LineHits* hits = &scripts_[std::string(name)];
  by_address_.emplace_back(name, hits);
  return hits;
}

void Coverage::hit(std::string_view point) {
  auto it = points_.find(point);
  if (it == points_.end()) it = points_.emplace(std::string(point), 0).first;
  ++it->second;
}

void Coverage::add(const Coverage& other) {
  for (const auto& [name, hits] : other.scripts_) {
    LineHits& mine = scripts_[name];
    if (mine.size() < hits.size()) mine.resize(hits.size(), 0);
    for (size_t line = 0; line < hits.size(); ++line) mine[line] += hits[line];
  }
  for (const auto& [name, n] : other.points_) points_[name] += n;
}

void Coverage::set_line(std::string_view script, size_t line, uint64_t hits) {
  auto it = scripts_.find(script);
  if (it == scripts_.end()) it = scripts_.emplace(std::string(script), LineHits{}).first;
  if (it->second.size() <= line) it->second.resize(line + 1, 0);
  it->second[line] = hits;
}

void Coverage::set_point(std::string_view point, uint64_t hits) {
  auto it = points_.find(point);
  if (it == points_.end()) it = points_.emplace(std::string(point), 0).first;
  it->second = hits;
}

}  // namespace lockstep::kernel
