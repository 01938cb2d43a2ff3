// One Redis database: the key -> value map, each key's expiry, and an index of expiries.
//
// This is storage only: it never decides that a key is logically expired (the Server does that
// with the right notion of "now", see expire.cc) and never propagates anything. The expiry index
// is a min-heap of (expire_at_ms, key) entries that may be stale (a key re-expired or deleted
// since); stale entries are skipped when popped and the heap is rebuilt when they outnumber the
// keys with a TTL, so its size stays bounded.
#ifndef LOCKSTEP_SIM_REDIS_DB_H_
#define LOCKSTEP_SIM_REDIS_DB_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/redis/object.h"

namespace lockstep::redis {

// "No expiry". Not -1: a node's local clock may be negative (clock offsets), so every int64 other
// than this one is a valid expiry time.
inline constexpr int64_t kNoExpire = INT64_MIN;

struct Entry {
  Value value;
  int64_t expire_at_ms = kNoExpire;  // absolute node-local ms
  bool has_expire() const { return expire_at_ms != kNoExpire; }
};

class Keyspace {
 public:
  // The entry of `key`, expired or not; nullptr if absent.
  Entry* find(std::string_view key);
  const Entry* find(std::string_view key) const;

  // Adds a key without expiry. REQUIRES: `key` is absent.
  Entry& add(std::string_view key, Value value);
  // Removes a key. Returns true if it was present.
  bool remove(std::string_view key);
  void clear();

  // Sets or clears (kNoExpire) the expiry of the entry stored under `key`.
  // REQUIRES: `entry` is find(key).
  void set_expire(std::string_view key, Entry& entry, int64_t expire_at_ms);

  size_t size() const { return map_.size(); }
  // Keys that have an expiry.
  size_t volatile_count() const { return volatile_count_; }

  // Removes the next index entry whose key is stored with exactly that expiry and whose expiry is
  // < now_ms (Redis expires a key when now > expire_at). Returns false when none is due. The
  // order is by (expire_at_ms, key). The key is not removed from the keyspace.
  bool pop_due(int64_t now_ms, std::string* key);

  // Every key, sorted bytewise.
  std::vector<std::string> sorted_keys() const;

  // Calls fn(key, entry) for every key in unspecified order. Callers must not let the order reach
  // output or behaviour (sort, or only aggregate).
  template <typename Fn>
  void for_each_unordered(Fn&& fn) const {
    for (const auto& [key, entry] : map_) fn(std::string_view(key), entry);
  }

 private:
  struct HeapItem {
    int64_t expire_at_ms;
    std::string key;
  };
  // std::push_heap builds a max-heap; this inverted order makes the front the earliest expiry.
  struct HeapAfter {
    bool operator()(const HeapItem& a, const HeapItem& b) const {
      if (a.expire_at_ms != b.expire_at_ms) return a.expire_at_ms > b.expire_at_ms;
      return a.key > b.key;
    }
  };
  void rebuild_heap();

  std::unordered_map<std::string, Entry, StringHash, StringEq> map_;
  std::vector<HeapItem> heap_;
  size_t volatile_count_ = 0;
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_DB_H_
