#include "sim/core/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

namespace lockstep {

Status check_input_file(const std::string& path, const std::string& what) {
  const std::string head = path + ": " + what + ": ";
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) return Status::error(head + "no such file");
  if (ec) return Status::error(head + "cannot look at it: " + ec.message());
  if (st.type() == std::filesystem::file_type::directory) return Status::error(head + "is a directory, not a file");
  if (st.type() != std::filesystem::file_type::regular) return Status::error(head + "not a regular file");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::error(head + "cannot open: " + std::strerror(errno));
  std::fclose(f);
  return Status::ok_status();
}

}  // namespace lockstep
