#include "sim/history/writer.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <vector>

#include "sim/core/assert.h"
#include "sim/core/interrupt.h"
#include "sim/core/zstd_file.h"
#include "sim/history/json_text.h"

namespace lockstep::history {
namespace {
constexpr size_t kFlushBytes = size_t{1} << 20;

// A piece of a line built on the stack and appended to the buffer in one go: most fields are a
// short plain key and a short plain value, and one append instead of four or five is most of
// what writing them costs. Each add returns false when the piece would not fit or a string
// needs escaping; the caller then writes the field the general way (nothing was appended yet).
class Chunk {
 public:
  bool raw(std::string_view s) {
    if (s.size() > kSize - n_) return false;
    copy(buf_ + n_, s);
    n_ += s.size();
    return true;
  }
  bool quoted(std::string_view s) {
    if (s.size() + 2 > kSize - n_ || !json_plain(s)) return false;
    buf_[n_] = '"';
    copy(buf_ + n_ + 1, s);
    buf_[n_ + 1 + s.size()] = '"';
    n_ += s.size() + 2;
    return true;
  }
  bool integer(int64_t v) {
    auto [end, ec] = std::to_chars(buf_ + n_, buf_ + kSize, v);
    if (ec != std::errc()) return false;
    n_ = static_cast<size_t>(end - buf_);
    return true;
  }
  // `, "key": `
  bool key(const Writer::Key& k) { return raw(k.field()); }
  void append_to(std::string& out) const { out.append(buf_, n_); }

 private:
  // memcpy of a few bytes, inline: words of eight, the last one overlapping the one before (a
  // call to the library's memcpy per piece was most of what a field cost).
  static void copy(char* to, std::string_view s) {
    const char* from = s.data();
    const size_t n = s.size();
    if (n >= 8) {
      for (size_t i = 0; i + 8 < n; i += 8) std::memcpy(to + i, from + i, 8);
      std::memcpy(to + n - 8, from + n - 8, 8);
    } else if (n >= 4) {
      std::memcpy(to, from, 4);
      std::memcpy(to + n - 4, from + n - 4, 4);
    } else {
      for (size_t i = 0; i < n; ++i) to[i] = from[i];
    }
  }

  static constexpr size_t kSize = 256;
  char buf_[kSize];
  size_t n_ = 0;
};

template <typename T>
bool strings_chunk(Chunk& c, const Writer::Key& k, std::span<const T> values) {
  if (!c.key(k) || !c.raw("[")) return false;
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0 && !c.raw(", ")) return false;
    if (!c.quoted(values[i])) return false;
  }
  return c.raw("]");
}

}  // namespace

Writer::Writer(Mode mode, uint64_t max_bytes) : mode_(mode), max_bytes_(max_bytes) {
  LS_ASSERT(buf_.empty());
  LS_ASSERT(max_bytes > 0);
}

Result<std::unique_ptr<Writer>> Writer::to_file(const std::string& path, uint64_t max_bytes,
                                                Compression compression) {
  auto w = std::make_unique<Writer>(Mode::kFile, max_bytes);
  w->path_ = path;
  w->tmp_path_ = path + ".tmp";
  // Remembered before it exists: a signal between creating the file and remembering it would
  // leave it behind (unlinking a file not yet there is harmless).
  interrupt::remember(w->tmp_path_);
  w->file_ = std::fopen(w->tmp_path_.c_str(), "wb");
  if (w->file_ == nullptr) {
    interrupt::forget(w->tmp_path_);
    return Status::error(w->tmp_path_ + ": cannot create the history file: " +
                         std::strerror(errno));
  }
  if (compression == Compression::kZstd) w->zstd_ = std::make_unique<ZstdWriter>(w->file_);
  return w;
}

Writer::~Writer() {
  if (file_ != nullptr) abandon();
}

void Writer::key(const Key& k) {
  LS_ASSERT(in_line_);
  buf_ += k.field();
}

Writer& Writer::begin_header() {
  LS_ASSERT(!in_line_);
  LS_ASSERT(lines_ == 0);
  in_line_ = true;
  line_begin_ = buf_.size();
  buf_ += "{\"lockstep_history\": 1";
  return *this;
}

void Writer::append_line(std::string_view line, TimeUs t) {
  LS_ASSERT(!in_line_);
  LS_ASSERT(t >= last_t_);
  last_t_ = t;
  check_line_size(line);
  buf_ += line;
  buf_ += '\n';
  ++lines_;
  if (mode_ != Mode::kMemory && buf_.size() >= kFlushBytes) flush();
}

void write_sorted_by_time(std::string_view text, Writer& out) {
  struct Line {
    TimeUs t;
    std::string_view text;
  };
  std::vector<Line> lines;
  bool header = true;
  while (!text.empty()) {
    const size_t nl = text.find('\n');
    const std::string_view line = text.substr(0, nl);
    text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
    if (header) {
      out.append_line(line, 0);
      header = false;
      continue;
    }
    // Every event line starts {"t": <digits>, (Writer::begin).
    constexpr std::string_view kPrefix = "{\"t\": ";
    LS_ASSERT(line.substr(0, kPrefix.size()) == kPrefix);
    TimeUs t = 0;
    for (size_t i = kPrefix.size(); i < line.size() && line[i] >= '0' && line[i] <= '9'; ++i) t = t * 10 + (line[i] - '0');
    lines.push_back({t, line});
  }
  std::stable_sort(lines.begin(), lines.end(), [](const Line& a, const Line& b) { return a.t < b.t; });
  for (const Line& l : lines) out.append_line(l.text, l.t);
}

Writer& Writer::begin(TimeUs t, std::string_view type) {
  LS_ASSERT(!in_line_);
  LS_ASSERT(unordered_ || t >= last_t_);
  last_t_ = t;
  in_line_ = true;
  line_begin_ = buf_.size();
  if (Chunk c; c.raw("{\"t\": ") && c.integer(t) && c.raw(", \"type\": ") && c.quoted(type)) {
    c.append_to(buf_);
    return *this;
  }
  buf_ += "{\"t\": ";
  append_json_int(buf_, t);
  buf_ += ", \"type\": ";
  append_json_string(buf_, type);
  return *this;
}

Writer& Writer::str(const Key& k, std::string_view v) {
  LS_ASSERT(in_line_);
  if (Chunk c; c.key(k) && c.quoted(v)) {
    c.append_to(buf_);
    return *this;
  }
  key(k);
  append_json_string(buf_, v);
  return *this;
}

Writer& Writer::num(const Key& k, int64_t v) {
  LS_ASSERT(in_line_);
  if (Chunk c; c.key(k) && c.integer(v)) {
    c.append_to(buf_);
    return *this;
  }
  key(k);
  append_json_int(buf_, v);
  return *this;
}

Writer& Writer::boolean(const Key& k, bool v) {
  key(k);
  buf_ += v ? "true" : "false";
  return *this;
}

Writer& Writer::null(const Key& k) {
  key(k);
  buf_ += "null";
  return *this;
}

Writer& Writer::strings(const Key& k, std::span<const std::string> values) {
  LS_ASSERT(in_line_);
  if (Chunk c; strings_chunk(c, k, values)) {
    c.append_to(buf_);
    return *this;
  }
  key(k);
  buf_ += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) buf_ += ", ";
    append_json_string(buf_, values[i]);
  }
  buf_ += ']';
  return *this;
}

Writer& Writer::strings(const Key& k, std::span<const std::string_view> values) {
  LS_ASSERT(in_line_);
  if (Chunk c; strings_chunk(c, k, values)) {
    c.append_to(buf_);
    return *this;
  }
  key(k);
  buf_ += '[';
  for (size_t i = 0; i < values.size(); ++i) {
    if (i > 0) buf_ += ", ";
    append_json_string(buf_, values[i]);
  }
  buf_ += ']';
  return *this;
}

std::string& Writer::value(const Key& k) {
  key(k);
  return buf_;
}

std::string& Writer::value_of_any_key(std::string_view k) {
  LS_ASSERT(in_line_);
  buf_ += ", ";
  append_json_string(buf_, k);
  buf_ += ": ";
  return buf_;
}

void Writer::end() {
  LS_ASSERT(in_line_);
  buf_ += '}';
  check_line_size(std::string_view(buf_).substr(line_begin_));
  buf_ += '\n';
  in_line_ = false;
  ++lines_;
  if (mode_ != Mode::kMemory && buf_.size() >= kFlushBytes) flush();
}

void Writer::flush() {
  LS_ASSERT(!in_line_);
  if (mode_ == Mode::kMemory) return;
  bytes_ += buf_.size();
  if (mode_ == Mode::kFile && !io_failed() && !over_limit()) {
    if (zstd_ != nullptr) {
      if (Status s = zstd_->write(buf_); !s.ok()) fail_io(s.message());
    } else if (std::fwrite(buf_.data(), 1, buf_.size(), file_) != buf_.size()) {
      fail_io(std::strerror(errno));
    }
  }
  buf_.clear();
}

void Writer::fail_io(std::string cause) {
  if (io_error_.empty()) io_error_ = cause.empty() ? std::string("unknown error") : std::move(cause);
}

void Writer::check_line_size(std::string_view line) {
  if (line.size() <= kMaxLineBytes) return;
  // The event's type, for the message: lines start {"t": N, "type": "<type>" (the header: none).
  std::string what = "the header";
  constexpr std::string_view kType = "\"type\": \"";
  const std::string_view start = line.substr(0, 128);
  if (const size_t at = start.find(kType); at != std::string_view::npos) {
    const std::string_view type = start.substr(at + kType.size());
    const std::string name(type.substr(0, type.find('"')));
    what = (!name.empty() && std::string_view("aeiou").find(name[0]) != std::string_view::npos ? "an " : "a ") +
           name + " event";
  }
  fail_io("line " + std::to_string(lines_ + 1) + " (" + what + ") would be " + std::to_string(line.size()) +
          " bytes, and a history line is at most 1 MiB (docs/history-format.md): a command's arguments, a "
          "reply or a key's state too large to record");
}

Status Writer::io_error() const {
  if (!io_failed()) return Status::ok_status();
  return Status::error(tmp_path_ + ": writing the history failed: " + io_error_);
}

Status Writer::finish() {
  LS_ASSERT(!in_line_);
  flush();
  if (mode_ == Mode::kMemory) bytes_ = buf_.size();
  if (io_failed()) {  // what made the writes fail, rather than the size they would have had
    const Status s = io_error();
    abandon();
    return s;
  }
  if (over_limit()) {
    abandon();
    return Status::error("the history exceeded its limit of " + std::to_string(max_bytes_) +
                         " bytes (raise limits.max_history_bytes or shorten the run)");
  }
  if (mode_ != Mode::kFile) return Status::ok_status();
  LS_ASSERT(file_ != nullptr);
  if (zstd_ != nullptr) {
    if (Status s = zstd_->finish(); !s.ok()) fail_io(s.message());
  }
  zstd_.reset();
  if (std::fclose(file_) != 0) fail_io(std::strerror(errno));
  file_ = nullptr;
  if (io_failed()) {
    std::remove(tmp_path_.c_str());
    interrupt::forget(tmp_path_);
    return io_error();
  }
  const bool moved = std::rename(tmp_path_.c_str(), path_.c_str()) == 0;
  if (!moved) std::remove(tmp_path_.c_str());
  // Forgotten only once it is gone (renamed or removed), so no signal can find it unlisted. The
  // final name is the caller's to list (scenario/run.cc lists it before calling finish).
  interrupt::forget(tmp_path_);
  if (!moved) return Status::error(path_ + ": cannot move the history into place: " + std::strerror(errno));
  return Status::ok_status();
}

void Writer::abandon() {
  zstd_.reset();
  if (file_ != nullptr) {
    std::fclose(file_);
    file_ = nullptr;
    std::remove(tmp_path_.c_str());
    interrupt::forget(tmp_path_);
  }
  buf_.clear();
}

}  // namespace lockstep::history
