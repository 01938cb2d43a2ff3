#include "sim/kernel/app_client.h"

#include <cstdio>

namespace lockstep::kernel {

std::string make_uuid(Rng rng) {
  const uint64_t hi = rng.next_u64();
  const uint64_t lo = rng.next_u64();
  char buf[40];
  // Version 4 / variant 1 bits, so it looks like what java.util.UUID.randomUUID() prints.
  std::snprintf(buf, sizeof(buf), "%08x-%04x-4%03x-%04x-%012llx",
                static_cast<unsigned>(hi >> 32), static_cast<unsigned>((hi >> 16) & 0xffff),
                static_cast<unsigned>(hi & 0x0fff),
                static_cast<unsigned>(0x8000 | ((lo >> 48) & 0x3fff)),
                static_cast<unsigned long long>(lo & 0xffffffffffffULL));
  return buf;
}

}  // namespace lockstep::kernel
