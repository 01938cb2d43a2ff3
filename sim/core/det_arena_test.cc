#include "sim/core/det_arena.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "sim/core/rng.h"

namespace lockstep {
namespace {

uint32_t low32(const void* p) { return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(p)); }

// A seeded sequence of lua_Alloc calls (allocations, growths, shrinks, frees) replayed on an arena;
// returns the low 32 bits of every block handed out, and checks each block kept its bytes.
std::vector<uint32_t> replay(DetArena& arena, uint64_t seed, int steps) {
  Rng rng(seed);
  struct Block {
    void* p;
    size_t size;
    unsigned char fill;
  };
  std::vector<Block> live;
  std::vector<uint32_t> seen;
  for (int i = 0; i < steps; ++i) {
    const uint64_t what = rng.below(10);
    if (what < 5 || live.empty()) {
      // Mostly small, sometimes up to 2 MiB (own chunks).
      const size_t size = rng.below(20) == 0 ? 1 + rng.below(size_t{2} << 20) : 1 + rng.below(700);
      void* p = arena.realloc(nullptr, 0, size);
      EXPECT_NE(p, nullptr);
      const auto fill = static_cast<unsigned char>(i);
      std::memset(p, fill, size);
      live.push_back({p, size, fill});
      seen.push_back(low32(p));
    } else {
      const size_t k = rng.below(live.size());
      Block& b = live[k];
      for (size_t j = 0; j < b.size; j += 97) EXPECT_EQ(static_cast<unsigned char*>(b.p)[j], b.fill) << "step " << i;
      if (what < 8) {
        const size_t size = 1 + rng.below(b.size * 2 + 16);
        void* p = arena.realloc(b.p, b.size, size);
        EXPECT_NE(p, nullptr);
        for (size_t j = 0; j < std::min(size, b.size); j += 97) EXPECT_EQ(static_cast<unsigned char*>(p)[j], b.fill);
        std::memset(p, b.fill, size);
        b = {p, size, b.fill};
        seen.push_back(low32(p));
      } else {
        EXPECT_EQ(arena.realloc(b.p, b.size, 0), nullptr);
        live.erase(live.begin() + static_cast<std::ptrdiff_t>(k));
      }
    }
  }
  for (const Block& b : live) arena.realloc(b.p, b.size, 0);
  return seen;
}

// The property Lua's `pairs` needs: the same calls give blocks at the same addresses modulo 2^32,
// whatever else holds the address space — here another arena of the same name, alive, in the
// place the second one would have taken first.
TEST(DetArena, TheSameCallsGiveTheSameLowAddressesWhereverTheArenaLands) {
  DetArena first("c1");
  const std::vector<uint32_t> a = replay(first, 7, 3000);
  DetArena second("c1");
  const std::vector<uint32_t> b = replay(second, 7, 3000);
  EXPECT_EQ(a, b);
  DetArena third("c1");
  EXPECT_NE(replay(third, 8, 3000), a);  // another sequence, other places
}

// A process holds many arenas at once (a node per master, a state per Lua client): each still
// finds a place with the low addresses its name and calls give.
TEST(DetArena, ManyArenasOfOneNameAtOnceAllGiveTheSameLowAddresses) {
  std::vector<std::unique_ptr<DetArena>> arenas;
  std::vector<uint32_t> lows;
  for (int i = 0; i < 300; ++i) {
    arenas.push_back(std::make_unique<DetArena>("redis-node"));
    void* p = arenas.back()->realloc(nullptr, 0, 100);
    ASSERT_NE(p, nullptr) << "arena " << i;
    lows.push_back(low32(p));
  }
  EXPECT_EQ(std::count(lows.begin(), lows.end(), lows.front()), 300);
}

TEST(DetArena, FreedBlocksAreReusedAndGrowthInPlaceKeepsTheBlock) {
  DetArena arena("c2");
  void* p = arena.realloc(nullptr, 0, 40);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(arena.realloc(p, 40, 48), p);  // the same 48-byte class
  EXPECT_EQ(arena.realloc(p, 48, 0), nullptr);
  EXPECT_EQ(arena.realloc(nullptr, 0, 33), p);  // the last freed block of the class comes back
  EXPECT_EQ(arena.realloc(nullptr, 0, DetArena::kMaxBlockBytes + 1), nullptr);
  const size_t before = arena.mapped_bytes();
  void* big = arena.realloc(nullptr, 0, size_t{3} << 20);  // a chunk of its own
  ASSERT_NE(big, nullptr);
  EXPECT_GE(arena.mapped_bytes(), before + (size_t{3} << 20));
  void* small = arena.realloc(nullptr, 0, 16);  // still from the first chunk
  EXPECT_LT(static_cast<char*>(small) - static_cast<char*>(p), 1 << 20);
}

}  // namespace
}  // namespace lockstep
