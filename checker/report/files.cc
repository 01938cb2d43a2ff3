#include "checker/report/files.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/core/assert.h"
#include "sim/core/files.h"
#include "sim/core/interrupt.h"

namespace lockstep::report {

namespace {

// Writes `text` straight into the existing `path`: a device or a pipe.
Status write_in_place(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  if (!out) return Status::error(path + ": cannot open: " + std::strerror(errno));
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
  out.flush();
  if (!out) return Status::error(path + ": write failed: " + std::strerror(errno));
  return Status::ok_status();
}

}  // namespace

Status write_file_atomically(const std::string& path, const std::string& text) {
  LS_ASSERT(!path.empty());
  // `--json /dev/null`, /dev/stdout or a FIFO is written in place: a file renamed over a device
  // would replace the device itself (as root, /dev/null became a regular file).
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && !S_ISREG(existing.st_mode)) {
    if (S_ISDIR(existing.st_mode)) return Status::error(path + ": is a directory, not a file");
    return write_in_place(path, text);
  }
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

Status refuse_overwriting_input(const std::string& command, const std::string& flag, const std::string& out_path,
                                const std::string& input, const std::string& what, const std::string& written) {
  namespace fs = std::filesystem;
  for (const std::string& target : {out_path, out_path + ".tmp"}) {
    std::error_code ec;
    if (fs::exists(target, ec) && fs::exists(input, ec) && fs::equivalent(target, input, ec) && !ec) {
      return Status::error(flag + " " + out_path + ": " + (target == out_path ? "is " : "its temporary file " + target + " is ") + what +
                           " " + input + ", the " + command + "'s own input; write " + written +
                           " to another file");
    }
  }
  return Status::ok_status();
}

}  // namespace lockstep::report
