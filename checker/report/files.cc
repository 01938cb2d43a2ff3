#include "checker/report/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "sim/core/assert.h"
#include "sim/core/files.h"
#include "sim/core/interrupt.h"

namespace lockstep::report {

Result<std::string> read_text_file(const std::string& path, uint64_t max_bytes) {
  LS_ASSERT(max_bytes > 0);
  if (Status s = check_input_file(path, "input"); !s.ok()) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) return Status::error(path + ": cannot read its size");
  if (static_cast<uint64_t>(size) > max_bytes) {
    return Status::error(path + ": larger than the limit of " + std::to_string(max_bytes) + " bytes");
  }
  in.seekg(0, std::ios::beg);
  std::string text(static_cast<size_t>(size), '\0');
  if (size > 0 && !in.read(text.data(), size)) return Status::error(path + ": read failed");
  LS_ASSERT(text.size() == static_cast<size_t>(size));
  return text;
}

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
