// DetArena: memory whose addresses replay.
//
// Lua 5.1 places a table key that is a table, function, coroutine or userdata by its address
// (the low 32 bits of the pointer), so `pairs` over such keys visits them in an order that
// follows where the allocator put them — a different order in every run, since the process's
// address space is randomised. A Lua algorithm that iterates `waiting[thread] = true` then wrote
// a different history for the same seed.
//
// A DetArena hands out blocks whose addresses, modulo 2^32, depend only on the sequence of
// allocations and frees it was asked for (and on its `name`): every chunk of memory it maps sits
// at an address congruent to a fixed value modulo 4 GiB, and its blocks come from size-class free
// lists and a bump pointer, never from a general allocator. One arena serves one Lua state
// (lua_Alloc); it maps chunks as the state grows and unmaps them all when destroyed.
//
// Not thread-safe (a Lua state is used by one thread at a time).
#ifndef LOCKSTEP_SIM_CORE_DET_ARENA_H_
#define LOCKSTEP_SIM_CORE_DET_ARENA_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace lockstep {

class DetArena {
 public:
  // `name` (a client's name, say) picks where in the 4 GiB period the arena starts, so that
  // arenas of one process rarely compete for the same addresses; any name gives the same
  // addresses in every run.
  explicit DetArena(std::string_view name);
  ~DetArena();
  DetArena(const DetArena&) = delete;
  DetArena& operator=(const DetArena&) = delete;

  // lua_Alloc's contract: `nsize` 0 frees `ptr` (of `osize` bytes) and returns nullptr; else
  // returns a block of `nsize` bytes holding the first min(osize, nsize) bytes of `ptr` (`ptr`
  // null: `osize` is 0), or nullptr when no memory could be mapped (then `ptr` is untouched); a
  // shrink never fails.
  void* realloc(void* ptr, size_t osize, size_t nsize);

  // Bytes mapped, for tests.
  size_t mapped_bytes() const {
    size_t bytes = 0;
    for (const Chunk& c : chunks_) bytes += c.bytes;
    return bytes;
  }

  // The largest block (larger requests get nullptr, as if memory ran out).
  static constexpr size_t kMaxBlockBytes = size_t{1} << 30;

 private:
  static constexpr size_t kSmallStep = 16;
  static constexpr size_t kSmallMax = 1024;
  static constexpr int kSmallClasses = kSmallMax / kSmallStep;  // 16, 32, ... 1024
  static constexpr int kClasses = kSmallClasses + 20;            // then 2 KiB, 4 KiB, ... 1 GiB

  static int class_of(size_t n);
  static size_t class_bytes(int c);
  void* allocate(int c);
  void release(void* p, int c);
  // Maps a chunk of at least `at_least` bytes at the arena's next place; `own`: for one block
  // (the bump pointer stays where it is). nullptr when nothing could be mapped.
  char* map_chunk(size_t at_least, bool own);
  // Maps `bytes` at an address in [start, end) whose low 32 bits are `low`; nullptr if none could
  // be mapped.
  static char* map_in(uint64_t start, uint64_t end, uint64_t low, size_t bytes);

  struct Chunk {
    char* base;
    size_t bytes;
  };
  const uint64_t start_;       // the arena's place in the 4 GiB period
  uint64_t next_offset_ = 0;   // where the next chunk goes, counted from start_
  std::vector<Chunk> chunks_;
  char* bump_ = nullptr;       // the current chunk's free tail
  char* bump_end_ = nullptr;
  size_t last_bump_chunk_ = 0;  // the size of the chunk the bump pointer last moved to
  std::array<void*, kClasses> free_{};  // each class's freed blocks, last freed first
};

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_DET_ARENA_H_
