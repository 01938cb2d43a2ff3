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
  ~Keyspace();
  // Copies are deep; they do not share the lookup cache.
  Keyspace(const Keyspace& other);
  Keyspace& operator=(const Keyspace& other);

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

  size_t size() const { return size_; }
  // Keys that have an expiry.
  size_t volatile_count() const { return volatile_count_; }

  // Finds the next key whose expiry is < now_ms (Redis expires a key when now > expire_at), in
  // (expire_at_ms, key) order. Returns false when none is due. The key stays in the keyspace;
  // REQUIRES: the caller removes it before calling again.
  bool pop_due(int64_t now_ms, std::string* key);

  // Starts loading the table slot of `key` into the cache (step 1), then, once that slot is
  // likely there, its node (step 2). A script's KEYS are known before it runs: prefetching them
  // overlaps the cache misses of its first access with the work of starting the script.
  void prefetch_slot(std::string_view key) const {
    if (!slots_.empty()) __builtin_prefetch(&slots_[hash_of(key) & (slots_.size() - 1)]);
  }
  void prefetch_node(std::string_view key) const {
    if (slots_.empty()) return;
    const Slot& s = slots_[hash_of(key) & (slots_.size() - 1)];
    if (s.node != nullptr) __builtin_prefetch(s.node);
  }

  // Every key, sorted bytewise.
  std::vector<std::string> sorted_keys() const;

  // Calls fn(key, entry) for every key in unspecified order. Callers must not let the order reach
  // output or behaviour (sort, or only aggregate).
  template <typename Fn>
  void for_each_unordered(Fn&& fn) const {
    for (const Slot& s : slots_) {
      if (s.node != nullptr) fn(s.node->key(), static_cast<const Entry&>(s.node->entry));
    }
  }

 private:
  // A key and its entry in one allocation: the key's bytes follow the node.
  struct Node {
    Entry entry;
    uint32_t key_size = 0;
    std::string_view key() const { return {reinterpret_cast<const char*>(this + 1), key_size}; }
  };
  // The table: open addressing with linear probing over a power-of-two array of (hash, node);
  // one cache miss reaches the slot, one the node. Nodes never move, so Entry pointers stay
  // valid until their key is removed.
  struct Slot {
    uint64_t hash = 0;
    Node* node = nullptr;
  };
  // Large tables are read at random: they ask the kernel for huge pages, so that a lookup does
  // not also miss the TLB.
  template <typename T>
  struct HugePageAllocator {
    using value_type = T;
    HugePageAllocator() = default;
    template <typename U>
    HugePageAllocator(const HugePageAllocator<U>&) {}
    T* allocate(size_t n);
    void deallocate(T* p, size_t n);
    bool operator==(const HugePageAllocator&) const { return true; }
  };
  static Node* new_node(std::string_view key, Value value);
  static void delete_node(Node* node);
  static uint64_t hash_of(std::string_view key);
  // Index of the slot holding `key`, or of the empty slot where it would go.
  size_t probe(std::string_view key, uint64_t hash) const;
  void grow();
  void erase_slot(size_t i);

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
  void forget_cached() { cached_node_ = nullptr; }

  std::vector<Slot, HugePageAllocator<Slot>> slots_;
  size_t size_ = 0;
  std::vector<HeapItem> heap_;
  size_t volatile_count_ = 0;
  // The last key found: a script touches its key several times in a row, and comparing bytes
  // is cheaper than hashing them. Removals and clears forget it.
  Node* cached_node_ = nullptr;
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_DB_H_
