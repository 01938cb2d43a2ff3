#include "sim/redis/db.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace lockstep::redis {

namespace {
// The heap is rebuilt when it holds more than this many entries beyond twice the live TTLs.
constexpr size_t kHeapSlack = 1024;
}  // namespace

Entry* Keyspace::find(std::string_view key) {
  if (cached_entry_ != nullptr && key == cached_key_) return cached_entry_;
  auto it = map_.find(key);
  if (it == map_.end()) return nullptr;
  cached_key_.assign(key.data(), key.size());
  cached_entry_ = &it->second;
  return cached_entry_;
}

const Entry* Keyspace::find(std::string_view key) const {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
}

Entry& Keyspace::add(std::string_view key, Value value) {
  auto [it, inserted] = map_.try_emplace(std::string(key));
  LS_ASSERT(inserted);
  it->second.value = std::move(value);
  LS_ASSERT(!it->second.has_expire());
  return it->second;
}

bool Keyspace::remove(std::string_view key) {
  auto it = map_.find(key);
  if (it == map_.end()) return false;
  if (&it->second == cached_entry_) forget_cached();
  if (it->second.has_expire()) {
    LS_ASSERT(volatile_count_ > 0);
    volatile_count_--;
  }
  map_.erase(it);
  return true;
}

void Keyspace::clear() {
  forget_cached();
  map_.clear();
  heap_.clear();
  volatile_count_ = 0;
}

void Keyspace::set_expire(std::string_view key, Entry& entry, int64_t expire_at_ms) {
  LS_ASSERT(volatile_count_ <= map_.size());
  LS_ASSERT(!entry.has_expire() || volatile_count_ > 0);
  if (!entry.has_expire() && expire_at_ms != kNoExpire) volatile_count_++;
  if (entry.has_expire() && expire_at_ms == kNoExpire) volatile_count_--;
  entry.expire_at_ms = expire_at_ms;
  if (expire_at_ms == kNoExpire) return;
  // An earlier tracked heap entry will find the new time when it pops.
  if (entry.indexed_at_ms != kNoExpire && entry.indexed_at_ms <= expire_at_ms) return;
  push(key, entry, expire_at_ms);
  if (heap_.size() > 2 * volatile_count_ + kHeapSlack) rebuild_heap();
}

void Keyspace::push(std::string_view key, Entry& entry, int64_t at_ms) {
  heap_.push_back(HeapItem{at_ms, std::string(key)});
  std::push_heap(heap_.begin(), heap_.end(), HeapAfter{});
  entry.indexed_at_ms = at_ms;
}

void Keyspace::rebuild_heap() {
  heap_.clear();
  for (auto& [key, entry] : map_) {
    entry.indexed_at_ms = entry.has_expire() ? entry.expire_at_ms : kNoExpire;
    if (entry.has_expire()) heap_.push_back(HeapItem{entry.expire_at_ms, key});
  }
  // The heap order is total on (time, key), so the pop order does not depend on map order.
  std::make_heap(heap_.begin(), heap_.end(), HeapAfter{});
  LS_ASSERT(heap_.size() == volatile_count_);
}

bool Keyspace::pop_due(int64_t now_ms, std::string* key) {
  LS_ASSERT(key != nullptr);
  while (!heap_.empty() && heap_.front().expire_at_ms < now_ms) {
    std::pop_heap(heap_.begin(), heap_.end(), HeapAfter{});
    HeapItem item = std::move(heap_.back());
    heap_.pop_back();
    Entry* e = find(item.key);
    // Only the key's tracked entry counts; others are stale (deleted or re-created keys).
    if (e == nullptr || e->indexed_at_ms != item.expire_at_ms) continue;
    e->indexed_at_ms = kNoExpire;
    if (!e->has_expire()) continue;
    if (e->expire_at_ms == item.expire_at_ms) {
      *key = std::move(item.key);
      return true;
    }
    LS_ASSERT(e->expire_at_ms > item.expire_at_ms);
    push(item.key, *e, e->expire_at_ms);  // the TTL moved later: track the real time
  }
  return false;
}

std::vector<std::string> Keyspace::sorted_keys() const {
  std::vector<std::string> keys;
  keys.reserve(map_.size());
  for (const auto& kv : map_) keys.push_back(kv.first);
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace lockstep::redis
