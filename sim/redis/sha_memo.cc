#include "sim/redis/sha_memo.h"

#include "sim/core/assert.h"
#include "sim/redis/node.h"

namespace lockstep::redis {

const std::string& ShaMemo::digest(std::string_view body) {
  LS_ASSERT(used_ <= kCapacity && next_ < kCapacity);
  // A linear scan: with at most 16 entries, comparing sizes first rejects almost every
  // mismatch without touching the bodies.
  for (size_t i = 0; i < used_; ++i) {
    const Entry& e = entries_[i];
    if (e.body.size() == body.size() && std::string_view(e.body) == body) {
      ++hits_;
      return e.sha;
    }
  }
  if (body.size() > kMaxBodyBytes) {
    scratch_ = sha1_hex(body);
    return scratch_;
  }
  Entry& e = entries_[next_];
  e.body.assign(body);
  e.sha = sha1_hex(body);
  next_ = (next_ + 1) % kCapacity;
  if (used_ < kCapacity) ++used_;
  LS_ASSERT(e.sha.size() == 40);
  return e.sha;
}

}  // namespace lockstep::redis
