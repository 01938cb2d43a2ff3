// One Redis database: the key -> value map, each key's expiry, and an index of expiries.
//
// This is storage only: it never decides that a key is logically expired (the Server does that
// with the right notion of "now", see expire.cc) and never propagates anything. The expiry index
// is a min-heap of (time, key). Each key with a TTL has one tracked heap entry at a time no later
// than its expiry: moving the expiry later changes nothing in the heap, and a tracked entry that
// pops early is pushed again at the key's real expiry. Entries of deleted keys go stale and are
// skipped; the heap is rebuilt when stale entries outnumber the keys with a TTL, so its size
// stays bounded.
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
  // The time of this key's entry in the expiry index (kNoExpire: none); never later than
  // expire_at_ms, so that extending a TTL (the lock watchdog's PEXPIRE) costs no index work.
  int64_t indexed_at_ms = kNoExpire;
  bool has_expire() const { return expire_at_ms != kNoExpire; }
};

class Keyspace {
 public:
  Keyspace() = default;
  // Copies drop the lookup cache, which points into the source's map.
  Keyspace(const Keyspace& other) : map_(other.map_), heap_(other.heap_), volatile_count_(other.volatile_count_) {}
  Keyspace& operator=(const Keyspace& other) {
    if (this != &other) {
      map_ = other.map_;
      heap_ = other.heap_;
      volatile_count_ = other.volatile_count_;
      forget_cached();
    }
    return *this;
  }

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

  // Finds the next key whose expiry is < now_ms (Redis expires a key when now > expire_at), in
  // (expire_at_ms, key) order. Returns false when none is due. The key stays in the keyspace;
  // REQUIRES: the caller removes it before calling again.
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
  void push(std::string_view key, Entry& entry, int64_t at_ms);
  void forget_cached() {
    cached_entry_ = nullptr;
    cached_key_.clear();
  }

  std::unordered_map<std::string, Entry, StringHash, StringEq> map_;
  std::vector<HeapItem> heap_;
  size_t volatile_count_ = 0;
  // The last key found: a script touches its key several times in a row, and comparing bytes
  // is cheaper than hashing them. Node-based maps keep entry addresses stable; removals and
  // clears forget the cache.
  std::string cached_key_;
  Entry* cached_entry_ = nullptr;
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_DB_H_
