#include "sim/core/files.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/core/assert.h"

namespace lockstep {

Status check_input_file(const std::string& path, const std::string& what, bool allow_pipe) {
  const std::string head = path + ": " + what + ": ";
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  if (st.type() == std::filesystem::file_type::not_found) return Status::error(head + "no such file");
  if (ec) return Status::error(head + "cannot look at it: " + ec.message());
  if (st.type() == std::filesystem::file_type::directory) return Status::error(head + "is a directory, not a file");
  const bool pipe = allow_pipe && st.type() == std::filesystem::file_type::fifo;
  if (st.type() != std::filesystem::file_type::regular && !pipe) {
    return Status::error(head + (allow_pipe ? "not a regular file or a pipe" : "not a regular file"));
  }
  // Opening a pipe to try it would wait for its writer, and closing it could end the writer's
  // stream: the reader's own open says what is wrong.
  if (pipe) return Status::ok_status();
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::error(head + "cannot open: " + std::strerror(errno));
  std::fclose(f);
  return Status::ok_status();
}

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

}  // namespace lockstep
