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
  if (!a.is_aggregate()) return a == b;
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
  if (a.type != b.type || !a.is_aggregate()) return a == b;
  return sorted_items(a, group) == sorted_items(b, group);
}

// HELLO's reply with the connection id (the value after "id") zeroed.
Reply without_id(Reply r) {
  if (!r.is_aggregate()) return r;
  for (size_t i = 0; i + 1 < r.elements.size(); i += 2) {
    if (r.elements[i] == Reply::bulk("id")) r.elements[i + 1] = Reply::integer_of(0);
  }
  return r;
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

// True when every (group-sized) item of `part` is among those of `whole`.
bool contained_in(const Reply& part, const Reply& whole, size_t group) {
  std::vector<std::string> p = sorted_items(part, group), w = sorted_items(whole, group);
  return std::includes(w.begin(), w.end(), p.begin(), p.end());
}

// A SCAN-family reply, [cursor, elements]. Two finished scans (cursor 0 on both sides) return
// the same elements in any order (Redis's is its dict's, seeded at start-up). A call that one
// side ends and the other does not (Redis stops once it has COUNT elements, even at the last
// bucket) must not return anything the finished side lacks; two unfinished calls each return
// their own hash order's slice and are compared for shape only.
bool scan_like(const Reply& a, const Reply& b, size_t group) {
  auto shaped = [](const Reply& r) {
    return r.type == Reply::Type::kArray && r.elements.size() == 2 && r.elements[0].type == Reply::Type::kBulk &&
           r.elements[1].type == Reply::Type::kArray;
  };
  if (!shaped(a) || !shaped(b)) return a == b;
  const bool a_done = a.elements[0].str == "0", b_done = b.elements[0].str == "0";
  if (a_done && b_done) return as_multiset(a.elements[1], b.elements[1], group);
  if (a_done) return contained_in(b.elements[1], a.elements[1], group);
  if (b_done) return contained_in(a.elements[1], b.elements[1], group);
  return true;
}

// Same types and aggregate sizes; integers, errors and statuses equal; bulk strings any.
bool same_shape(const Reply& a, const Reply& b) {
  if (a.type != b.type) return false;
  if (a.type == Reply::Type::kBulk) return true;
  if (!a.is_aggregate()) return a == b;
  if (a.elements.size() != b.elements.size()) return false;
  for (size_t i = 0; i < a.elements.size(); i++) {
    if (!same_shape(a.elements[i], b.elements[i])) return false;
  }
  return true;
}

// CLIENT INFO/LIST text reduced to the comparable fields, line by line.
std::vector<std::string> client_fields(const std::string& text) {
  static const char* const kKept[] = {"name", "flags", "db", "sub", "psub", "ssub", "multi",
                                      "argv-mem", "cmd", "user", "redir", "resp"};
  std::vector<std::string> lines;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    std::string line = text.substr(start, end - start), kept;
    size_t pos = 0;
    while (pos < line.size()) {
      size_t space = line.find(' ', pos);
      if (space == std::string::npos) space = line.size();
      const std::string field = line.substr(pos, space - pos);
      const std::string name = field.substr(0, field.find('='));
      for (const char* k : kKept) {
        if (name == k) kept += field + " ";
      }
      pos = space + 1;
    }
    lines.push_back(kept);
    start = end + 1;
  }
  return lines;
}

bool client_info_like(const Reply& a, const Reply& b) {
  const bool texts = a.type == b.type && (a.type == Reply::Type::kBulk || a.type == Reply::Type::kVerbatim);
  if (!texts) return a == b;
  return client_fields(a.str) == client_fields(b.str);
}

// FUNCTION LIST with its libraries sorted, and in each the "functions" array sorted.
Reply sorted_function_list(Reply r) {
  if (r.type != Reply::Type::kArray) return r;
  auto by_encoding = [](const Reply& a, const Reply& b) { return resp::encode_reply(a) < resp::encode_reply(b); };
  for (Reply& lib : r.elements) {
    if (!lib.is_aggregate()) continue;
    for (size_t i = 0; i + 1 < lib.elements.size(); i += 2) {
      if (lib.elements[i] == Reply::bulk("functions") && lib.elements[i + 1].is_aggregate()) {
        std::sort(lib.elements[i + 1].elements.begin(), lib.elements[i + 1].elements.end(), by_encoding);
      }
    }
  }
  std::sort(r.elements.begin(), r.elements.end(), by_encoding);
  return r;
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
    case CompareRule::kUnsubscribeAll: return model == real;
    case CompareRule::kHello: return without_id(model) == without_id(real);
    case CompareRule::kScan: return scan_like(model, real, 1);
    case CompareRule::kScanPairs: return scan_like(model, real, 2);
    case CompareRule::kRandomPick: return same_shape(model, real);
    case CompareRule::kClientInfo: return client_info_like(model, real);
    case CompareRule::kFunctionList: return sorted_function_list(model) == sorted_function_list(real);
  }
  return false;
}

bool is_pmessage(const Reply& r) {
  return (r.type == Reply::Type::kArray || r.type == Reply::Type::kPush) && r.elements.size() == 4 &&
         r.elements[0] == Reply::bulk("pmessage");
}

// Sorts every run of consecutive pmessages (by their encoding), leaving all else in place.
std::vector<Reply> with_pmessage_runs_sorted(std::vector<Reply> replies) {
  size_t i = 0;
  while (i < replies.size()) {
    size_t j = i;
    while (j < replies.size() && is_pmessage(replies[j])) j++;
    if (j - i > 1) {
      std::sort(replies.begin() + static_cast<std::ptrdiff_t>(i), replies.begin() + static_cast<std::ptrdiff_t>(j),
                [](const Reply& a, const Reply& b) { return resp::encode_reply(a) < resp::encode_reply(b); });
    }
    i = std::max(j, i + 1);
  }
  return replies;
}

bool transcripts_match(const std::vector<Reply>& model_in, const std::vector<Reply>& real_in,
                       CompareRule rule) {
  if (model_in.size() != real_in.size()) return false;
  const std::vector<Reply> model = with_pmessage_runs_sorted(model_in);
  const std::vector<Reply> real = with_pmessage_runs_sorted(real_in);
  if (rule != CompareRule::kUnsubscribeAll) {
    for (size_t i = 0; i < model.size(); i++) {
      if (!replies_match(model[i], real[i], rule)) return false;
    }
    return true;
  }
  // Each reply is ["unsubscribe", channel, remaining]: kinds and counts in order, names as a set.
  std::vector<std::string> names_model, names_real;
  for (size_t i = 0; i < model.size(); i++) {
    const Reply& m = model[i];
    const Reply& r = real[i];
    const bool shaped = m.type == r.type && m.is_aggregate() && m.elements.size() == 3 &&
                        r.elements.size() == 3;
    if (!shaped) {
      if (m != r) return false;
      continue;
    }
    if (m.elements[0] != r.elements[0] || m.elements[2] != r.elements[2]) return false;
    names_model.push_back(resp::encode_reply(m.elements[1]));
    names_real.push_back(resp::encode_reply(r.elements[1]));
  }
  std::sort(names_model.begin(), names_model.end());
  std::sort(names_real.begin(), names_real.end());
  return names_model == names_real;
}

}  // namespace lockstep::differential
