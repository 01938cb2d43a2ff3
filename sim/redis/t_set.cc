// Set commands (Redis's t_set.c) and SetValue, the set storage.
//
// SPOP and SRANDMEMBER draw from the server's own stream (Server::random), never from a real
// source of randomness: a simulated run stays a function of its seed. The draws are O(set size),
// which a lock's sets never make expensive.
#include <algorithm>
#include <cstdint>
#include <string>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

bool SetValue::add(std::string_view member) {
  if (is_intset_) {
    int64_t v = 0;
    if (parse_int64(member, &v)) {
      auto it = std::lower_bound(ints_.begin(), ints_.end(), v);
      if (it != ints_.end() && *it == v) return false;
      ints_.insert(it, v);
      // Like Redis, the intset converts once it grows past the limit.
      if (ints_.size() > kMaxIntsetEntries) convert_to_dict();
      return true;
    }
    convert_to_dict();
  }
  return members_.insert_or_assign(member, Unit{});
}

bool SetValue::remove(std::string_view member) {
  if (!is_intset_) return members_.erase(member);
  int64_t v = 0;
  if (!parse_int64(member, &v)) return false;
  auto it = std::lower_bound(ints_.begin(), ints_.end(), v);
  if (it == ints_.end() || *it != v) return false;
  ints_.erase(it);
  return true;
}

bool SetValue::contains(std::string_view member) const {
  if (!is_intset_) return members_.find(member) != nullptr;
  int64_t v = 0;
  if (!parse_int64(member, &v)) return false;
  return std::binary_search(ints_.begin(), ints_.end(), v);
}

void SetValue::convert_to_dict() {
  LS_ASSERT(is_intset_);
  LS_ASSERT(members_.empty());
  for (int64_t v : ints_) members_.insert_or_assign(int_to_string(v), Unit{});
  ints_.clear();
  ints_.shrink_to_fit();
  is_intset_ = false;
}

namespace {

// The set at `key` for reading: *set is nullptr when absent. False after replying WRONGTYPE.
bool set_for_read(Call& c, std::string_view key, SetValue** set) {
  *set = nullptr;
  Entry* e = c.lookup(key);
  if (e == nullptr) return true;
  *set = value_if<SetValue>(e->value);
  if (*set == nullptr) {
    c.wrong_type();
    return false;
  }
  return true;
}

}  // namespace

void cmd_sadd(Call& c) {
  SetValue* set = nullptr;
  if (!set_for_read(c, c.argv[1], &set)) return;
  if (set == nullptr) set = value_if<SetValue>(c.db().add(c.argv[1], make_value(SetValue{})).value);
  int64_t added = 0;
  for (size_t j = 2; j < c.argv.size(); j++) {
    if (set->add(c.argv[j])) added++;
  }
  c.dirty += static_cast<uint64_t>(added);
  c.reply(Reply::integer_of(added));
}

void cmd_srem(Call& c) {
  SetValue* set = nullptr;
  if (!set_for_read(c, c.argv[1], &set)) return;
  if (set == nullptr) return c.reply(Reply::integer_of(0));
  int64_t removed = 0;
  for (size_t j = 2; j < c.argv.size() && set->size() > 0; j++) {
    if (set->remove(c.argv[j])) removed++;
  }
  if (set->size() == 0) {
    bool gone = c.db().remove(c.argv[1]);
    LS_ASSERT(gone);
  }
  c.dirty += static_cast<uint64_t>(removed);
  c.reply(Reply::integer_of(removed));
}

void cmd_sismember(Call& c) {
  SetValue* set = nullptr;
  if (!set_for_read(c, c.argv[1], &set)) return;
  c.reply(Reply::integer_of(set != nullptr && set->contains(c.argv[2]) ? 1 : 0));
}

void cmd_smismember(Call& c) {
  SetValue* set = nullptr;
  if (!set_for_read(c, c.argv[1], &set)) return;
  std::vector<Reply> out;
  out.reserve(c.argv.size() - 2);
  for (size_t j = 2; j < c.argv.size(); j++) {
    out.push_back(Reply::integer_of(set != nullptr && set->contains(c.argv[j]) ? 1 : 0));
  }
  c.reply(Reply::array(std::move(out)));
}

void cmd_smembers(Call& c) {
  SetValue* set = nullptr;
  if (!set_for_read(c, c.argv[1], &set)) return;
  std::vector<Reply> members;
  if (set != nullptr) {
    members.reserve(set->size());
    set->for_each([&](std::string_view m) { members.push_back(Reply::bulk(m)); });
  }
  c.reply(Reply::set(std::move(members)));
}

namespace {

// At most this many elements in one SRANDMEMBER reply with a negative count: Redis would build
// the reply until memory ran out, the model refuses it instead (docs/serve.md).
constexpr uint64_t kMaxRandomReplies = uint64_t{1} << 22;

std::vector<std::string> members_of(const SetValue& set) {
  std::vector<std::string> out;
  out.reserve(set.size());
  set.for_each([&](std::string_view m) { out.emplace_back(m); });
  return out;
}

// One member drawn uniformly. REQUIRES: the set is not empty.
std::string random_member(Rng& random, const SetValue& set) {
  std::vector<std::string> members = members_of(set);
  return members[random.below(members.size())];
}

std::vector<Reply> bulks(const std::vector<std::string>& members) {
  std::vector<Reply> out;
  out.reserve(members.size());
  for (const std::string& m : members) out.push_back(Reply::bulk(m));
  return out;
}

// `count` distinct members in random order. REQUIRES: count <= members.size().
std::vector<std::string> distinct_random(Rng& random, std::vector<std::string> members, uint64_t count) {
  LS_ASSERT(count <= members.size());
  for (uint64_t i = 0; i < count; i++) {
    const uint64_t j = i + random.below(members.size() - i);
    std::swap(members[i], members[j]);
  }
  members.resize(count);
  return members;
}

// The set at argv[1] for SPOP/SRANDMEMBER: nullptr after replying `absent` (no key) or
// WRONGTYPE.
SetValue* set_or_reply(Call& c, Reply absent) {
  Entry* e = c.lookup(c.argv[1]);
  if (e == nullptr) {
    c.reply(std::move(absent));
    return nullptr;
  }
  SetValue* set = value_if<SetValue>(e->value);
  if (set == nullptr) c.wrong_type();
  return set;
}

void spop_with_count(Call& c) {
  int64_t count = 0;
  if (!parse_int64(c.argv[2], &count) || count < 0) return c.error("ERR value is out of range, must be positive");
  SetValue* set = set_or_reply(c, Reply::set({}));
  if (set == nullptr) return;
  if (count == 0) return c.reply(Reply::set({}));
  const std::string key(c.argv[1]);
  const uint64_t size = set->size();
  if (static_cast<uint64_t>(count) >= size) {
    // The whole set, and the key goes: propagated as a DEL.
    c.reply(Reply::set(bulks(members_of(*set))));
    bool removed = c.db().remove(key);
    LS_ASSERT(removed);
    c.dirty += size;
    if (c.srv.propagating()) c.rewrite = {"DEL", key};
    return;
  }
  std::vector<std::string> popped = distinct_random(c.srv.random(), members_of(*set), static_cast<uint64_t>(count));
  for (const std::string& m : popped) {
    bool removed = set->remove(m);
    LS_ASSERT(removed);
  }
  LS_ASSERT(set->size() > 0);
  c.dirty += popped.size();
  c.reply(Reply::set(bulks(popped)));
  // Propagated as one SREM per member, as Redis 7.0 does.
  if (c.propagate && c.srv.propagating()) {
    for (const std::string& m : popped) c.srv.propagate(c.client.db, std::vector<std::string>{"SREM", key, m});
  }
  c.propagate = false;
}

void srandmember_with_count(Call& c) {
  int64_t l = 0;
  if (!parse_int64(c.argv[2], &l)) return c.not_integer();
  if (l == INT64_MIN) {
    return c.error("ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807");
  }
  const bool distinct = l >= 0;
  const uint64_t count = static_cast<uint64_t>(distinct ? l : -l);
  SetValue* set = set_or_reply(c, Reply::array({}));
  if (set == nullptr) return;
  if (count == 0) return c.reply(Reply::array({}));
  std::vector<std::string> members = members_of(*set);
  if (!distinct || count == 1) {
    // With repetitions (and a count of 1): each element drawn from the whole set.
    if (count > kMaxRandomReplies) {
      return c.error("ERR lockstep model: SRANDMEMBER with more than 4194304 repeated elements is not supported");
    }
    std::vector<Reply> out;
    out.reserve(count);
    for (uint64_t i = 0; i < count; i++) out.push_back(Reply::bulk(members[c.srv.random().below(members.size())]));
    return c.reply(Reply::array(std::move(out)));
  }
  if (count >= members.size()) return c.reply(Reply::array(bulks(members)));
  c.reply(Reply::array(bulks(distinct_random(c.srv.random(), std::move(members), count))));
}

}  // namespace

void cmd_spop(Call& c) {
  if (c.argv.size() == 3) return spop_with_count(c);
  if (c.argv.size() > 3) return c.syntax_error();
  SetValue* set = set_or_reply(c, Reply::nil());
  if (set == nullptr) return;
  const std::string member = random_member(c.srv.random(), *set);
  bool removed = set->remove(member);
  LS_ASSERT(removed);
  if (set->size() == 0) {
    bool gone = c.db().remove(c.argv[1]);
    LS_ASSERT(gone);
  }
  c.dirty++;
  // Propagated as the SREM of the member it popped.
  if (c.srv.propagating()) c.rewrite = {"SREM", std::string(c.argv[1]), member};
  c.reply(Reply::bulk(member));
}

void cmd_srandmember(Call& c) {
  if (c.argv.size() == 3) return srandmember_with_count(c);
  if (c.argv.size() > 3) return c.syntax_error();
  SetValue* set = set_or_reply(c, Reply::nil());
  if (set == nullptr) return;
  c.reply(Reply::bulk(random_member(c.srv.random(), *set)));
}

void cmd_scard(Call& c) {
  SetValue* set = nullptr;
  if (!set_for_read(c, c.argv[1], &set)) return;
  c.reply(Reply::integer_of(set != nullptr ? static_cast<int64_t>(set->size()) : 0));
}

}  // namespace lockstep::redis
