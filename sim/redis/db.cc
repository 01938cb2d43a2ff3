#include "sim/redis/db.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <sys/mman.h>
#include <cstdlib>

#include "sim/core/assert.h"
#include "sim/core/hash.h"

namespace lockstep::redis {

namespace {
// The heap is rebuilt when it holds more than this many entries beyond twice the live TTLs.
constexpr size_t kHeapSlack = 1024;
}  // namespace

namespace {
constexpr size_t kMinSlots = 16;
constexpr size_t kHugePage = 2u << 20;
}  // namespace

template <typename T>
T* Keyspace::HugePageAllocator<T>::allocate(size_t n) {
  const size_t bytes = n * sizeof(T);
  if (bytes < kHugePage) return static_cast<T*>(::operator new(bytes));
  const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  void* p = std::aligned_alloc(kHugePage, rounded);
  if (p == nullptr) throw std::bad_alloc();
  madvise(p, rounded, MADV_HUGEPAGE);  // advice only: without huge pages it still works
  return static_cast<T*>(p);
}

template <typename T>
void Keyspace::HugePageAllocator<T>::deallocate(T* p, size_t n) {
  if (n * sizeof(T) < kHugePage) {
    ::operator delete(p);
  } else {
    std::free(p);
  }
}

Keyspace::~Keyspace() { clear(); }

Keyspace::Keyspace(const Keyspace& other) { *this = other; }

Keyspace& Keyspace::operator=(const Keyspace& other) {
  if (this == &other) return *this;
  clear();
  // Same size and same hashes: every node lands in the same slot as in `other`.
  slots_.assign(other.slots_.size(), Slot{});
  for (size_t i = 0; i < other.slots_.size(); i++) {
    const Slot& s = other.slots_[i];
    if (s.node == nullptr) continue;
    Node* copy = new_node(s.node->key(), s.node->entry.value);
    copy->entry.expire_at_ms = s.node->entry.expire_at_ms;
    copy->entry.indexed_at_ms = s.node->entry.indexed_at_ms;
    slots_[i] = Slot{s.hash, copy};
  }
  size_ = other.size_;
  heap_ = other.heap_;
  volatile_count_ = other.volatile_count_;
  LS_ASSERT(cached_node_ == nullptr);
  return *this;
}

Keyspace::Node* Keyspace::new_node(std::string_view key, Value value) {
  LS_ASSERT(key.size() <= UINT32_MAX);
  void* mem = ::operator new(sizeof(Node) + key.size());
  Node* node = new (mem) Node{Entry{std::move(value)}, static_cast<uint32_t>(key.size())};
  std::memcpy(reinterpret_cast<char*>(node + 1), key.data(), key.size());
  return node;
}

void Keyspace::delete_node(Node* node) {
  node->~Node();
  ::operator delete(node);
}

// Where a key sits in the table never reaches an output (every listing sorts).
uint64_t Keyspace::hash_of(std::string_view key) { return hash_bytes(key); }

size_t Keyspace::probe(std::string_view key, uint64_t hash) const {
  LS_ASSERT(!slots_.empty());
  const size_t mask = slots_.size() - 1;
  // The table is never full, so an empty slot ends every probe.
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Slot& s = slots_[i];
    if (s.node == nullptr || (s.hash == hash && s.node->key() == key)) return i;
  }
}

Entry* Keyspace::find(std::string_view key) {
  if (cached_node_ != nullptr && cached_node_->key() == key) return &cached_node_->entry;
  if (size_ == 0) return nullptr;
  const Slot& s = slots_[probe(key, hash_of(key))];
  if (s.node == nullptr) return nullptr;
  cached_node_ = s.node;
  // Scripts test a key, then read its fields: start loading a hash's records now.
  if (const HashValue* h = value_if<HashValue>(s.node->entry.value)) h->prefetch();
  return &s.node->entry;
}

const Entry* Keyspace::find(std::string_view key) const {
  if (size_ == 0) return nullptr;
  const Slot& s = slots_[probe(key, hash_of(key))];
  return s.node == nullptr ? nullptr : &s.node->entry;
}

void Keyspace::grow() {
  std::vector<Slot, HugePageAllocator<Slot>> old = std::move(slots_);
  slots_.assign(std::max(kMinSlots, old.size() * 2), Slot{});
  const size_t mask = slots_.size() - 1;
  for (const Slot& s : old) {
    if (s.node == nullptr) continue;
    size_t i = s.hash & mask;
    while (slots_[i].node != nullptr) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

Entry& Keyspace::add(std::string_view key, Value value) {
  // At most 5/8 full: linear probes stay short, also for keys that are absent.
  if ((size_ + 1) * 8 > slots_.size() * 5) grow();
  const uint64_t hash = hash_of(key);
  const size_t i = probe(key, hash);
  LS_ASSERT(slots_[i].node == nullptr);
  Node* node = new_node(key, std::move(value));
  slots_[i] = Slot{hash, node};
  size_++;
  cached_node_ = node;
  LS_ASSERT(!node->entry.has_expire());
  return node->entry;
}

// Backward-shift deletion: later members of the probe run move up, so no tombstones are needed.
void Keyspace::erase_slot(size_t i) {
  const size_t mask = slots_.size() - 1;
  for (size_t j = (i + 1) & mask; slots_[j].node != nullptr; j = (j + 1) & mask) {
    const size_t home = slots_[j].hash & mask;
    // Slot j may move to i unless its home lies cyclically in (i, j].
    bool stays = (i <= j) ? (i < home && home <= j) : (i < home || home <= j);
    if (stays) continue;
    slots_[i] = slots_[j];
    i = j;
  }
  slots_[i] = Slot{};
}

bool Keyspace::remove(std::string_view key) {
  if (size_ == 0) return false;
  const size_t i = probe(key, hash_of(key));
  Node* node = slots_[i].node;
  if (node == nullptr) return false;
  if (node == cached_node_) forget_cached();
  if (node->entry.has_expire()) {
    LS_ASSERT(volatile_count_ > 0);
    volatile_count_--;
  }
  erase_slot(i);
  delete_node(node);
  size_--;
  return true;
}

void Keyspace::clear() {
  forget_cached();
  for (Slot& s : slots_) {
    if (s.node != nullptr) delete_node(s.node);
  }
  slots_.clear();
  size_ = 0;
  heap_.clear();
  volatile_count_ = 0;
}

void Keyspace::set_expire(std::string_view key, Entry& entry, int64_t expire_at_ms) {
  LS_ASSERT(volatile_count_ <= size_);
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
  for (Slot& s : slots_) {
    if (s.node == nullptr) continue;
    Entry& entry = s.node->entry;
    entry.indexed_at_ms = entry.has_expire() ? entry.expire_at_ms : kNoExpire;
    if (entry.has_expire()) heap_.push_back(HeapItem{entry.expire_at_ms, std::string(s.node->key())});
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
  keys.reserve(size_);
  for (const Slot& s : slots_) {
    if (s.node != nullptr) keys.emplace_back(s.node->key());
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

}  // namespace lockstep::redis
