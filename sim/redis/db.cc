#include "sim/redis/db.h"

#include <algorithm>

#include "sim/core/assert.h"

namespace lockstep::redis {

namespace {
// The heap is rebuilt when it holds more than this many entries beyond twice the live TTLs.
constexpr size_t kHeapSlack = 1024;
}  // namespace

Entry* Keyspace::find(std::string_view key) {
  auto it = map_.find(key);
  return it == map_.end() ? nullptr : &it->second;
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
  if (it->second.has_expire()) {
    LS_ASSERT(volatile_count_ > 0);
    volatile_count_--;
  }
  map_.erase(it);
  return true;
}

void Keyspace::clear() {
  map_.clear();
  heap_.clear();
  volatile_count_ = 0;
}

void Keyspace::set_expire(std::string_view key, Entry& entry, int64_t expire_at_ms) {
  LS_ASSERT(find(key) == &entry);
  LS_ASSERT(volatile_count_ <= map_.size());
  if (!entry.has_expire() && expire_at_ms != kNoExpire) volatile_count_++;
  if (entry.has_expire() && expire_at_ms == kNoExpire) volatile_count_--;
  entry.expire_at_ms = expire_at_ms;
  if (expire_at_ms == kNoExpire) return;
  heap_.push_back(HeapItem{expire_at_ms, std::string(key)});
  std::push_heap(heap_.begin(), heap_.end(), HeapAfter{});
  if (heap_.size() > 2 * volatile_count_ + kHeapSlack) rebuild_heap();
}

void Keyspace::rebuild_heap() {
  heap_.clear();
  for (const auto& [key, entry] : map_) {
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
    const Entry* e = find(item.key);
    if (e != nullptr && e->expire_at_ms == item.expire_at_ms) {
      *key = std::move(item.key);
      return true;
    }
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
