#include "tests/differential/compare.h"

#include <algorithm>
#include <cstdlib>

#include "sim/resp/writer.h"

namespace lockstep::differential {
namespace {

using redis::Reply;

bool within(const Reply& a, const Reply& b, int64_t tolerance) {
  if (a.type != b.type) return false;
  if (a.type == Reply::Type::kInteger) {
    if (a.integer < 0 || b.integer < 0) return a.integer == b.integer;
    return std::llabs(a.integer - b.integer) <= tolerance;
  }
  if (a.type != Reply::Type::kArray) return a == b;
  if (a.elements.size() != b.elements.size()) return false;
  for (size_t i = 0; i < a.elements.size(); i++) {
    if (!within(a.elements[i], b.elements[i], tolerance)) return false;
  }
  return true;
}

// The elements (or field/value pairs) of an array, each encoded, sorted.
std::vector<std::string> sorted_items(const Reply& r, size_t group) {
  std::vector<std::string> items;
  for (size_t i = 0; i < r.elements.size(); i += group) {
    std::string item;
    for (size_t j = i; j < std::min(i + group, r.elements.size()); j++) {
      item += resp::encode_reply(r.elements[j]);
    }
    items.push_back(std::move(item));
  }
  std::sort(items.begin(), items.end());
  return items;
}

bool as_multiset(const Reply& a, const Reply& b, size_t group) {
  if (a.type != Reply::Type::kArray || b.type != Reply::Type::kArray) return a == b;
  return sorted_items(a, group) == sorted_items(b, group);
}

bool time_like(const Reply& a, const Reply& b) {
  auto seconds = [](const Reply& r, int64_t* s) {
    if (r.type != Reply::Type::kArray || r.elements.size() != 2) return false;
    for (const Reply& e : r.elements) {
      if (e.type != Reply::Type::kBulk || e.str.empty()) return false;
      if (e.str.find_first_not_of("0123456789") != std::string::npos) return false;
    }
    *s = std::atoll(r.elements[0].str.c_str());
    return std::atoll(r.elements[1].str.c_str()) < 1'000'000;
  };
  int64_t sa = 0, sb = 0;
  if (!seconds(a, &sa) || !seconds(b, &sb)) return a == b;
  return std::llabs(sa - sb) <= 2;
}

}  // namespace

bool replies_match(const Reply& model, const Reply& real, CompareRule rule) {
  switch (rule) {
    case CompareRule::kExact: return model == real;
    case CompareRule::kTtl: return within(model, real, kTtlToleranceMs);
    case CompareRule::kTtlSeconds: return within(model, real, 1);
    case CompareRule::kUnordered: return as_multiset(model, real, 1);
    case CompareRule::kUnorderedPairs: return as_multiset(model, real, 2);
    case CompareRule::kTime: return time_like(model, real);
  }
  return false;
}

}  // namespace lockstep::differential
