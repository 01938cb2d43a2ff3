#include "sim/core/det_arena.h"

#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>

#include "sim/core/assert.h"

// Under AddressSanitizer, memory the arena has not handed out (a chunk's tail, a freed block) is
// poisoned, so that a use after free in a Lua state is still caught.
#if defined(__SANITIZE_ADDRESS__)
#define LOCKSTEP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LOCKSTEP_ASAN 1
#endif
#endif
#ifdef LOCKSTEP_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace lockstep {
namespace {

// Where arenas live: from 16 TiB to 128 TiB, below where Linux puts the executable, the heap and
// its other mappings with a 47- or 48-bit address space (near 94 and 127 TiB), so the first try
// usually succeeds; on a machine with a 39-bit address space (some arm64 kernels: 512 GiB), from
// 64 GiB to 512 GiB.
struct Region {
  uint64_t start, end;
};
constexpr Region kRegions[] = {{uint64_t{1} << 44, uint64_t{1} << 47}, {uint64_t{1} << 36, uint64_t{1} << 39}};
constexpr uint64_t kPeriod = uint64_t{1} << 32;  // Lua hashes the low 32 bits of an address
constexpr size_t kFirstChunkBytes = size_t{1} << 20;
constexpr size_t kLargestChunkStep = size_t{64} << 20;
constexpr size_t kChunkGrain = size_t{1} << 16;
// A block at least this large that does not fit the current chunk gets a chunk of its own, and
// the current chunk's free tail stays in use.
constexpr size_t kOwnChunkBytes = size_t{256} << 10;

// The period where the last chunk was mapped: the next search starts there, so that many arenas
// (a node per master, a state per Lua client) do not each try every taken period from the first.
// Which period a chunk lands in never matters (only the address modulo 4 GiB does).
std::atomic<uint64_t> g_period_hint{0};

uint64_t start_of(std::string_view name) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a: fixed, so the same name starts at the same place
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return (h % 64) * (kPeriod / 64);
}

}  // namespace

DetArena::DetArena(std::string_view name) : start_(start_of(name)) {}

DetArena::~DetArena() {
  for (const Chunk& c : chunks_) {
    UNPOISON(c.base, c.bytes);
    munmap(c.base, c.bytes);
  }
}

int DetArena::class_of(size_t n) {
  if (n <= kSmallMax) return static_cast<int>((std::max<size_t>(n, 1) + kSmallStep - 1) / kSmallStep) - 1;
  int c = kSmallClasses;
  size_t bytes = kSmallMax * 2;
  while (bytes < n) {
    bytes <<= 1;
    ++c;
  }
  return c;
}

size_t DetArena::class_bytes(int c) {
  if (c < kSmallClasses) return static_cast<size_t>(c + 1) * kSmallStep;
  return (kSmallMax * 2) << (c - kSmallClasses);
}

char* DetArena::map_chunk(size_t at_least, bool own) {
  size_t bytes = (at_least + kChunkGrain - 1) / kChunkGrain * kChunkGrain;
  if (!own) bytes = std::max(bytes, std::max(kFirstChunkBytes, std::min(last_bump_chunk_ * 2, std::max(last_bump_chunk_, kLargestChunkStep))));
  // Any address congruent to start_ + next_offset_ modulo 4 GiB gives the same low 32 bits.
  const uint64_t low = (start_ + next_offset_) % kPeriod;
  for (const Region& region : kRegions) {
    char* got = map_in(region.start, region.end, low, bytes);
    if (got == nullptr) continue;
    POISON(got, bytes);
    chunks_.push_back({got, bytes});
    next_offset_ += bytes;
    if (!own) {
      last_bump_chunk_ = bytes;
      bump_ = got;
      bump_end_ = bump_ + bytes;
    }
    return got;
  }
  return nullptr;
}

char* DetArena::map_in(uint64_t start, uint64_t end, uint64_t low, size_t bytes) {
  const uint64_t periods = (end - start) / kPeriod;
  const uint64_t first = g_period_hint.load(std::memory_order_relaxed) % periods;
  for (uint64_t tried = 0; tried < periods; ++tried) {
    const uint64_t period = (first + tried) % periods;
    const uint64_t at = start + period * kPeriod + low;
    if (at + bytes > end) continue;
    void* want = reinterpret_cast<void*>(at);
    void* got = mmap(want, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (got == MAP_FAILED) {
      if (errno == EEXIST) continue;  // taken: the next period
      return nullptr;                // beyond the address space, or out of memory
    }
    if (got != want) {  // a kernel that treats the address as a hint
      munmap(got, bytes);
      continue;
    }
    g_period_hint.store(period, std::memory_order_relaxed);
    return static_cast<char*>(got);
  }
  return nullptr;
}

void* DetArena::allocate(int c) {
  if (void* p = free_[static_cast<size_t>(c)]; p != nullptr) {
    UNPOISON(p, class_bytes(c));
    std::memcpy(&free_[static_cast<size_t>(c)], p, sizeof(void*));
    return p;
  }
  const size_t bytes = class_bytes(c);
  if (static_cast<size_t>(bump_end_ - bump_) < bytes) {
    if (bytes >= kOwnChunkBytes) {
      char* own = map_chunk(bytes, /*own=*/true);
      if (own != nullptr) UNPOISON(own, bytes);
      return own;
    }
    if (map_chunk(bytes, /*own=*/false) == nullptr) return nullptr;
  }
  void* p = bump_;
  bump_ += bytes;
  UNPOISON(p, bytes);
  return p;
}

void DetArena::release(void* p, int c) {
  std::memcpy(p, &free_[static_cast<size_t>(c)], sizeof(void*));
  free_[static_cast<size_t>(c)] = p;
  POISON(p, class_bytes(c));
}

void* DetArena::realloc(void* ptr, size_t osize, size_t nsize) {
  if (nsize == 0) {
    if (ptr != nullptr) release(ptr, class_of(osize));
    return nullptr;
  }
  if (nsize > kMaxBlockBytes) return nullptr;
  const int to = class_of(nsize);
  if (ptr != nullptr && class_of(osize) == to) return ptr;
  void* p = allocate(to);
  // A shrink that found no memory keeps its block: a larger one serves, and filed later under
  // the smaller size's class it is still large enough for it.
  if (p == nullptr) return nsize < osize ? ptr : nullptr;
  if (ptr != nullptr) {
    std::memcpy(p, ptr, std::min(osize, nsize));
    release(ptr, class_of(osize));
  }
  return p;
}

}  // namespace lockstep
