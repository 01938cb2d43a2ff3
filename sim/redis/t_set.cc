// Set commands (Redis's t_set.c) and SetValue, the set storage.
#include <algorithm>
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

void cmd_scard(Call& c) {
  SetValue* set = nullptr;
  if (!set_for_read(c, c.argv[1], &set)) return;
  c.reply(Reply::integer_of(set != nullptr ? static_cast<int64_t>(set->size()) : 0));
}

}  // namespace lockstep::redis
