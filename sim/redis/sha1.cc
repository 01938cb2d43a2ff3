// SHA-1 digests for the script cache, from OpenSSL's one-shot SHA1().
#include <openssl/sha.h>

#include <string>

#include "sim/core/assert.h"
#include "sim/redis/node.h"

namespace lockstep::redis {

std::string sha1_hex(std::string_view data) {
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out(2 * SHA_DIGEST_LENGTH, '0');
  for (size_t i = 0; i < SHA_DIGEST_LENGTH; i++) {
    out[2 * i] = kHex[digest[i] >> 4];
    out[2 * i + 1] = kHex[digest[i] & 0xF];
  }
  LS_ASSERT(out.size() == 40);
  return out;
}

}  // namespace lockstep::redis
