// A fast, well-mixed 64-bit hash of a byte string, for in-memory hash tables of short names and
// keys (the checker's symbol table, the Redis model's keyspace).
//
// Eight bytes at a time; the last up-to-eight as two overlapping loads; then murmur3's full
// finalizer, so that the low bits (a table's slot is hash & mask) are well mixed. Names and keys
// are short: std::hash's byte loop costs about three times as much on them.
//
// Unseeded and not collision-resistant: only where an entry sits in a table may depend on it,
// never an output.
#ifndef LOCKSTEP_SIM_CORE_HASH_H_
#define LOCKSTEP_SIM_CORE_HASH_H_

#include <cstdint>
#include <cstring>
#include <string_view>

namespace lockstep {

inline uint64_t hash_bytes(std::string_view text) {
  const char* p = text.data();
  size_t n = text.size();
  uint64_t h = 0x9e3779b97f4a7c15ull * (n + 1);
  for (; n > 8; p += 8, n -= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 31;
  }
  uint64_t w = 0;
  if (n >= 4) {
    uint32_t lo, hi;
    std::memcpy(&lo, p, 4);
    std::memcpy(&hi, p + n - 4, 4);
    w = (static_cast<uint64_t>(hi) << 32) | lo;
  } else if (n > 0) {
    const auto byte = [p](size_t i) { return static_cast<uint64_t>(static_cast<unsigned char>(p[i])); };
    w = (byte(0) << 16) | (byte(n / 2) << 8) | byte(n - 1);
  }
  h = (h ^ w) * 0x94d049bb133111ebull;
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ull;
  h ^= h >> 33;
  return h;
}

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_HASH_H_
