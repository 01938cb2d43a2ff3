// ShaMemo: remembers the SHA-1 of the last few script bodies a node was sent.
//
// Redis hashes the body of every EVAL to find the script in its cache; so does the model, twice
// per EVAL (once for the command's flags, once to run it). Clients send the same handful of
// bodies over and over (an RLock client has three or four scripts), so a small memo of
// body -> digest turns most of that hashing into a length check and a memcmp. The digest is a
// pure function of the body, so the memo changes only the cost, never a reply. It is bounded:
// past kCapacity bodies it overwrites entries in round-robin order.
#ifndef LOCKSTEP_SIM_REDIS_SHA_MEMO_H_
#define LOCKSTEP_SIM_REDIS_SHA_MEMO_H_

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace lockstep::redis {

class ShaMemo {
 public:
  static constexpr size_t kCapacity = 16;
  // Bodies longer than this are hashed every time (and never stored), so the memo's memory
  // stays bounded at kCapacity * kMaxBodyBytes.
  static constexpr size_t kMaxBodyBytes = 64 * 1024;

  // The lowercase hex SHA-1 of `body`, as sha1_hex() returns it. The reference stays valid
  // until the next call.
  const std::string& digest(std::string_view body);

  // Number of calls answered from the memo (for tests).
  uint64_t hits() const { return hits_; }

 private:
  struct Entry {
    std::string body;
    std::string sha;
  };
  std::array<Entry, kCapacity> entries_;
  size_t used_ = 0;   // entries filled so far (<= kCapacity)
  size_t next_ = 0;   // the entry the next new body overwrites
  uint64_t hits_ = 0;
  std::string scratch_;  // the digest of an oversize body
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_SHA_MEMO_H_
