// Redis's script PRNG: the classic 48-bit linear congruential generator (x' = a*x + c mod 2^48,
// a = 0x5DEECE66D, c = 0xB), which math.random draws from in scripts.
//
// Redis 7.0.15 starts it in the standard unseeded state (0x1234ABCD330E) when the server
// starts and does not reseed it between scripts: the sequence continues from one script to the
// next (checked against redis-server 7.0.15: the first `math.random(1000)` after start is 397,
// then 841, 354). math.randomseed(n) sets the state to (n << 16) | 0x330E.
#ifndef LOCKSTEP_SIM_REDIS_RAND48_H_
#define LOCKSTEP_SIM_REDIS_RAND48_H_

#include <cstdint>

namespace lockstep::redis {

class Rand48 {
 public:
  static constexpr uint64_t kInitialState = 0x1234ABCD330Eull;
  static constexpr int32_t kMax = INT32_MAX;  // REDIS_LRAND48_MAX

  // Back to the state of a freshly started server.
  void reset() { state_ = kInitialState; }
  // srand48(seed): the low 32 bits of the seed become the high 32 bits of the state.
  void seed(int32_t seed) {
    state_ = (static_cast<uint64_t>(static_cast<uint32_t>(seed)) << 16) | 0x330Eu;
  }
  // lrand48(): the next state's top 31 bits.
  int32_t next() {
    state_ = (0x5DEECE66Dull * state_ + 0xBu) & ((1ull << 48) - 1);
    return static_cast<int32_t>(state_ >> 17);
  }
  uint64_t state() const { return state_; }

 private:
  uint64_t state_ = kInitialState;
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_RAND48_H_
