// An insertion-ordered map from strings to values: the storage of hashes and of non-integer sets.
//
// Redis 7.0 keeps small hashes in a listpack, whose order is insertion order (an update keeps the
// field's place, a delete closes the gap); large hashes and sets live in a dict whose order is
// unspecified. The model keeps insertion order at every size, so replies are deterministic and
// identical to Redis wherever Redis's order is defined. Small maps are a plain vector scanned
// linearly (cheapest for the one-field lock hashes); past kIndexThreshold entries an index makes
// lookups O(1), and deletions leave tombstones that are compacted when they outnumber live entries.
#ifndef LOCKSTEP_SIM_REDIS_ORDERED_MAP_H_
#define LOCKSTEP_SIM_REDIS_ORDERED_MAP_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sim/core/assert.h"

namespace lockstep::redis {

// Transparent hashing so that maps keyed by std::string can be searched with a string_view.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
struct StringEq {
  using is_transparent = void;
  bool operator()(std::string_view a, std::string_view b) const { return a == b; }
};

template <typename V>
class OrderedMap {
 public:
  static constexpr size_t kIndexThreshold = 32;

  struct Slot {
    std::string key;
    V value;
    bool live = true;
  };

  size_t size() const { return live_; }
  bool empty() const { return live_ == 0; }

  // The value stored under `key`, or nullptr.
  V* find(std::string_view key) {
    size_t i = position(key);
    return i == kNone ? nullptr : &slots_[i].value;
  }
  const V* find(std::string_view key) const {
    size_t i = position(key);
    return i == kNone ? nullptr : &slots_[i].value;
  }

  // Inserts at the end, or overwrites in place. Returns true if the key was new.
  bool insert_or_assign(std::string_view key, V value) {
    size_t i = position(key);
    if (i != kNone) {
      slots_[i].value = std::move(value);
      return false;
    }
    slots_.push_back(Slot{std::string(key), std::move(value), true});
    live_++;
    if (index_) {
      index_->emplace(slots_.back().key, slots_.size() - 1);
    } else if (slots_.size() > kIndexThreshold) {
      rebuild_index();
    }
    LS_ASSERT(live_ <= slots_.size());
    return true;
  }

  // Removes `key`. Returns true if it was present.
  bool erase(std::string_view key) {
    size_t i = position(key);
    if (i == kNone) return false;
    live_--;
    if (!index_) {
      slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(i));
      return true;
    }
    index_->erase(index_->find(key));
    slots_[i].live = false;
    slots_[i].key.clear();
    slots_[i].key.shrink_to_fit();
    if (slots_.size() - live_ > live_) compact();
    LS_ASSERT(live_ <= slots_.size());
    return true;
  }

  // Calls fn(key, value) for every live entry in insertion order.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const Slot& s : slots_) {
      if (s.live) fn(std::string_view(s.key), s.value);
    }
  }

  OrderedMap() = default;
  OrderedMap(const OrderedMap& other) : slots_(other.slots_), live_(other.live_) {
    if (other.index_) rebuild_index();
  }
  OrderedMap& operator=(const OrderedMap& other) {
    if (this != &other) {
      slots_ = other.slots_;
      live_ = other.live_;
      index_.reset();
      if (other.index_) rebuild_index();
    }
    return *this;
  }
  OrderedMap(OrderedMap&&) noexcept = default;
  OrderedMap& operator=(OrderedMap&&) noexcept = default;

 private:
  static constexpr size_t kNone = static_cast<size_t>(-1);
  using Index = std::unordered_map<std::string, size_t, StringHash, StringEq>;

  size_t position(std::string_view key) const {
    if (index_) {
      auto it = index_->find(key);
      return it == index_->end() ? kNone : it->second;
    }
    for (size_t i = 0; i < slots_.size(); i++) {
      if (slots_[i].key == key) return i;
    }
    return kNone;
  }

  void rebuild_index() {
    index_ = std::make_unique<Index>();
    index_->reserve(slots_.size());
    for (size_t i = 0; i < slots_.size(); i++) {
      if (slots_[i].live) index_->emplace(slots_[i].key, i);
    }
  }

  // Drops tombstones, keeping the order of live entries.
  void compact() {
    std::vector<Slot> kept;
    kept.reserve(live_);
    for (Slot& s : slots_) {
      if (s.live) kept.push_back(std::move(s));
    }
    slots_ = std::move(kept);
    LS_ASSERT(slots_.size() == live_);
    if (slots_.size() > kIndexThreshold) {
      rebuild_index();
    } else {
      index_.reset();
    }
  }

  std::vector<Slot> slots_;
  size_t live_ = 0;
  std::unique_ptr<Index> index_;  // null while the map is small
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_ORDERED_MAP_H_
