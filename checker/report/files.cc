#include "checker/report/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "sim/core/assert.h"
#include "sim/core/files.h"
#include "sim/core/interrupt.h"

namespace lockstep::report {

Status write_file_atomically(const std::string& path, const std::string& text) {
  LS_ASSERT(!path.empty());
  const std::string tmp = path + ".tmp";
  // Removed if the process is interrupted before the rename (sim/core/interrupt.h).
  interrupt::remember(tmp);
  struct Forget {
    const std::string& tmp;
    ~Forget() { interrupt::forget(tmp); }
  } forget{tmp};
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return Status::error(tmp + ": cannot create: " + std::strerror(errno));
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return Status::error(tmp + ": write failed: " + std::strerror(errno));
    }
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return Status::error(path + ": cannot move into place: " + std::strerror(err));
  }
  return Status::ok_status();
}

}  // namespace lockstep::report
