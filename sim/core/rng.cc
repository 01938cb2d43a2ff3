#include "sim/core/rng.h"

#include "sim/core/assert.h"

namespace lockstep {
namespace {

uint64_t splitmix64_next(uint64_t& x) {
  x += 0x9e3779b97f4a7c15ULL;
  return mix64(x);
}

uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

}  // namespace

uint64_t mix64(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t hash_bytes(std::string_view bytes) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return mix64(h);
}

Rng::Rng(uint64_t seed) : seed_(seed) {
  uint64_t x = seed;
  for (uint64_t& word : state_) word = splitmix64_next(x);
  // xoshiro's state must not be all zero; splitmix64 output never is for four draws in a row.
  LS_ASSERT((state_[0] | state_[1] | state_[2] | state_[3]) != 0);
}

Rng Rng::stream(std::string_view name) const {
  return Rng(mix64(seed_ ^ hash_bytes(name)));
}

uint64_t Rng::next_u64() {
  const uint64_t result = rotl(state_[1] * 5, 7) * 9;
  const uint64_t t = state_[1] << 17;
  state_[2] ^= state_[0];
  state_[3] ^= state_[1];
  state_[1] ^= state_[2];
  state_[0] ^= state_[3];
  state_[2] ^= t;
  state_[3] = rotl(state_[3], 45);
  return result;
}

uint64_t Rng::below(uint64_t bound) {
  LS_ASSERT(bound > 0);
  // Lemire's multiply-and-reject: unbiased, one division only on the rare rejection path.
  __uint128_t m = static_cast<__uint128_t>(next_u64()) * bound;
  uint64_t low = static_cast<uint64_t>(m);
  if (low < bound) {
    const uint64_t threshold = -bound % bound;
    while (low < threshold) {
      m = static_cast<__uint128_t>(next_u64()) * bound;
      low = static_cast<uint64_t>(m);
    }
  }
  const uint64_t result = static_cast<uint64_t>(m >> 64);
  LS_ASSERT(result < bound);
  return result;
}

int64_t Rng::between(int64_t lo, int64_t hi) {
  LS_ASSERT(lo <= hi);
  const uint64_t span = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<int64_t>(next_u64());
  return static_cast<int64_t>(static_cast<uint64_t>(lo) + below(span + 1));
}

bool Rng::chance_ppm(uint32_t ppm) {
  LS_ASSERT(ppm <= 1000000);
  return below(1000000) < ppm;
}

}  // namespace lockstep
