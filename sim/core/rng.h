// The project's only source of randomness: xoshiro256** seeded through splitmix64.
//
// A run is a pure function of its seed. Independent consumers (the network, each client, the
// fault generator) draw from named streams derived from the run seed, so adding a client or a
// fault never shifts the draws of another stream; shrinking relies on this. Standard library
// distributions are never used because their output differs between implementations.
#ifndef LOCKSTEP_SIM_CORE_RNG_H_
#define LOCKSTEP_SIM_CORE_RNG_H_

#include <cstdint>
#include <string_view>

namespace lockstep {

class Rng {
 public:
  explicit Rng(uint64_t seed);

  // A generator whose sequence depends only on this generator's seed and on `name`, not on how
  // many values were drawn from this generator.
  Rng stream(std::string_view name) const;

  uint64_t seed() const { return seed_; }

  uint64_t next_u64();
  // Uniform in [0, bound). REQUIRES: bound > 0.
  uint64_t below(uint64_t bound);
  // Uniform in [lo, hi], both inclusive. REQUIRES: lo <= hi.
  int64_t between(int64_t lo, int64_t hi);
  // True with probability ppm / 1,000,000. REQUIRES: ppm <= 1,000,000.
  bool chance_ppm(uint32_t ppm);

 private:
  uint64_t seed_;
  uint64_t state_[4];
};

// Mixes a 64-bit value (the splitmix64 finalizer); exposed for deterministic derived ids.
uint64_t mix64(uint64_t value);
// FNV-1a over bytes, then mixed; stable across platforms and runs.
uint64_t hash_bytes(std::string_view bytes);

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_RNG_H_
