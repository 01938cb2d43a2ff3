// The values a key can hold: string, hash, list, set, sorted set.
//
// One C++ type per Redis type, held in a std::variant whose index is the Redis type. Each type's
// operations live beside its commands (t_set.cc holds SetValue's methods, t_zset.cc ZSetValue's),
// as in Redis's source. Orders are deterministic everywhere: hashes keep insertion order, sets of
// integers are ascending (Redis's intset) and other sets keep insertion order, sorted sets are
// ordered by (score, member bytes).
#ifndef LOCKSTEP_SIM_REDIS_OBJECT_H_
#define LOCKSTEP_SIM_REDIS_OBJECT_H_

#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <variant>
#include <vector>

#include "sim/redis/ordered_map.h"

namespace lockstep::redis {

// The index of each alternative in Value; also Redis's TYPE names in kTypeNames.
enum class ObjType : uint8_t { kString = 0, kHash = 1, kList = 2, kSet = 3, kZSet = 4 };
inline constexpr const char* kTypeNames[] = {"string", "hash", "list", "set", "zset"};

using HashValue = OrderedMap<std::string>;
using ListValue = std::deque<std::string>;

// A set. While every member is a canonical integer and there are at most kMaxIntsetEntries of
// them, it is Redis's intset: members kept sorted ascending. Otherwise it is a dict, whose order
// the model fixes as insertion order (after a conversion: the former intset's ascending order,
// then later additions). A set never converts back, as in Redis.
class SetValue {
 public:
  static constexpr size_t kMaxIntsetEntries = 512;  // set-max-intset-entries

  // Adds a member. Returns true if it was not present.
  bool add(std::string_view member);
  // Removes a member. Returns true if it was present.
  bool remove(std::string_view member);
  bool contains(std::string_view member) const;
  size_t size() const { return is_intset_ ? ints_.size() : members_.size(); }
  bool is_intset() const { return is_intset_; }
  // Calls fn(member) for every member in the model's order.
  template <typename Fn>
  void for_each(Fn&& fn) const;

 private:
  struct Unit {};
  void convert_to_dict();

  bool is_intset_ = true;
  std::vector<int64_t> ints_;  // sorted, while is_intset_
  OrderedMap<Unit> members_;   // once converted
};

// A sorted set: member -> score, ordered by (score, member) with members compared as bytes.
// Redis 7.0 keeps small sorted sets in a listpack (up to 128 members of up to 64 bytes), where a
// score is stored as text and a -0 comes back as 0; the model tracks that encoding for exactly
// this effect (order is the same in both encodings).
class ZSetValue {
 public:
  static constexpr size_t kMaxListpackEntries = 128;  // zset-max-listpack-entries
  static constexpr size_t kMaxListpackValue = 64;     // zset-max-listpack-value

  // A new set is a listpack unless its first member is too long for one (as ZADD decides).
  explicit ZSetValue(std::string_view first_member = {})
      : listpack_(first_member.size() <= kMaxListpackValue) {}
  bool is_listpack() const { return listpack_; }

  struct Item {
    double score;
    std::string member;
  };
  // Orders by score, then by member bytes (as Redis's skiplist and listpack do).
  struct Less {
    using is_transparent = void;
    bool operator()(const Item& a, const Item& b) const {
      if (a.score < b.score) return true;
      if (b.score < a.score) return false;
      return a.member < b.member;
    }
  };
  using Ordered = std::set<Item, Less>;

  // The member's score, or nullptr.
  const double* score(std::string_view member) const;
  // Inserts a member or moves it to a new score.
  void set(std::string_view member, double score);
  // Removes a member. Returns true if it was present.
  bool remove(std::string_view member);
  size_t size() const { return scores_.size(); }
  const Ordered& ordered() const { return ordered_; }
  // 0-based position in (score, member) order. REQUIRES: the member is present. O(n).
  size_t rank(std::string_view member) const;

 private:
  std::unordered_map<std::string, double, StringHash, StringEq> scores_;
  Ordered ordered_;
  bool listpack_ = true;
};

using Value = std::variant<std::string, HashValue, ListValue, SetValue, ZSetValue>;

inline ObjType type_of(const Value& v) { return static_cast<ObjType>(v.index()); }

template <typename Fn>
void SetValue::for_each(Fn&& fn) const {
  if (is_intset_) {
    for (int64_t v : ints_) {
      std::string text = std::to_string(v);
      fn(std::string_view(text));
    }
    return;
  }
  members_.for_each([&](std::string_view key, const Unit&) { fn(key); });
}

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_OBJECT_H_
