// The history reader: the header with nlohmann/json, event lines through LineParser into fields,
// and the fields through HistoryBuilder into records.
#include "checker/history_parse.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <new>
#include <optional>

#include "checker/history_builder.h"
#include "checker/history_line.h"
#include "sim/core/assert.h"
#include "sim/core/files.h"
#include "sim/core/zstd_file.h"

namespace lockstep::checker {
namespace {

using fields::LineFields;
using internal::LineParser;

// Where the reader's bytes come from: a file or a string, read in pieces into its buffer.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `size` bytes into `out`; returns how many (0 at the end), or an error.
  virtual Result<size_t> read(char* out, size_t size) = 0;
  // The number of bytes there are to read, when known for certain (a string).
  virtual std::optional<size_t> size_hint() const = 0;
};

// A file or a pipe, its text as it is or compressed with zstd (`run --compress`).
class FileSource final : public ByteSource {
 public:
  // `owned`: closed at the end (a file the reader opened; not stdin).
  FileSource(std::FILE* file, bool owned) : file_(file), owned_(owned), text_(file) {}
  ~FileSource() override {
    if (owned_) std::fclose(file_);
  }
  // A file may still be growing (or be a pipe): not known.
  std::optional<size_t> size_hint() const override { return std::nullopt; }
  Result<size_t> read(char* out, size_t size) override {
    Result<size_t> n = text_.read(out, size);
    if (n.ok()) return n;
    return Status::error(text_.compressed() ? "cannot read the compressed history: " + n.status().message()
                                            : "cannot read the history (" + n.status().message() + ")");
  }

 private:
  std::FILE* file_;
  bool owned_;
  TextReader text_;  // declared after file_: built from it, destroyed before it is closed
};

class TextSource final : public ByteSource {
 public:
  explicit TextSource(std::string_view text) : rest_(text) {}
  std::optional<size_t> size_hint() const override { return rest_.size(); }
  Result<size_t> read(char* out, size_t size) override {
    const size_t n = std::min(size, rest_.size());
    std::memcpy(out, rest_.data(), n);
    rest_.remove_prefix(n);
    return n;
  }

 private:
  std::string_view rest_;
};

// Bytes read per refill. The buffer holds one refill plus the longest line a refill can cut.
constexpr size_t kReadBytes = size_t{4} << 20;

// Reads the history line by line through a buffer of fixed size (about 5 MiB), so the reader
// needs memory for the records it keeps, not for the file: a history is never held whole.
Result<History> parse_source(ByteSource& input, std::string source) {
  HistoryBuilder reader(source);
  LineParser parser;
  LineFields fields;
  bool have_header = false;
  // A small input of known size gets a buffer of its own size (a fuzzer parses hundreds of
  // thousands of tiny ones): the whole input fits, with one byte left to see its end.
  const std::optional<size_t> hint = input.size_hint();
  const size_t full = kReadBytes + kMaxHistoryLineBytes + 1;
  const size_t data_capacity = hint.has_value() ? std::min(full, *hint + 1) : full;
  std::unique_ptr<char[]> buffer(new char[data_capacity + simdjson::SIMDJSON_PADDING]);
  char* const data = buffer.get();
  std::memset(data + data_capacity, 0, simdjson::SIMDJSON_PADDING);
  size_t begin = 0, end = 0;  // the unread bytes: [begin, end)
  bool at_end = false;
  auto located = [&](const Status& s) {
    return Status::error(source + ":" + std::to_string(reader.line) + ": " + s.message());
  };
  auto on_line = [&](const char* start, size_t len) -> Status {
    if (reader.line == UINT32_MAX) return Status::error("too many lines");
    ++reader.line;
    if (len > 0 && start[len - 1] == '\r') --len;
    size_t first = 0;
    while (first < len && (start[first] == ' ' || start[first] == '\t')) ++first;
    if (first == len) return Status();  // blank line
    if (len > kMaxHistoryLineBytes) return Status::error("line longer than 1 MiB");
    if (!have_header) {
      have_header = true;
      return reader.header(std::string_view(start, len));
    }
    Status s = parser.parse(start, len, data_capacity + simdjson::SIMDJSON_PADDING - static_cast<size_t>(start - data), fields);
    if (s.ok()) s = reader.event(fields);
    return s;
  };
  for (;;) {
    const void* nl = std::memchr(data + begin, '\n', end - begin);
    if (nl != nullptr) {
      const size_t len = static_cast<const char*>(nl) - (data + begin);
      if (Status s = on_line(data + begin, len); !s.ok()) return located(s);
      begin += len + 1;
      continue;
    }
    if (at_end) {
      if (begin < end) {
        if (Status s = on_line(data + begin, end - begin); !s.ok()) return located(s);
      }
      break;
    }
    if (end - begin > kMaxHistoryLineBytes + 1) {  // no newline yet: the line is too long
      ++reader.line;
      return located(Status::error("line longer than 1 MiB"));
    }
    std::memmove(data, data + begin, end - begin);
    end -= begin;
    begin = 0;
    LS_ASSERT(end < data_capacity);  // room to read, or to see the end (an exact hint leaves one byte)
    Result<size_t> n = input.read(data + end, data_capacity - end);
    if (!n.ok()) return Status::error(source + ": " + n.status().message());
    if (n.value() == 0) at_end = true;
    end += n.value();
  }
  if (!have_header) return Status::error(source + ": empty history (expected a header line)");
  if (Status s = reader.finish(); !s.ok()) return located(s);
  return reader.take();
}

// Out of memory while the records grow is the machine's limit, said as such (not a crash).
Result<History> parse_guarded(ByteSource& input, const std::string& source) {
  try {
    return parse_source(input, source);
  } catch (const std::bad_alloc&) {
    return Status::error(source + ": out of memory reading the history");
  }
}

}  // namespace

Result<History> parse_history_file(const std::string& path) {
  if (path == "-") {  // a pipe: read once, in pieces like any file
    FileSource input(stdin, false);
    return parse_guarded(input, "<stdin>");
  }
  if (Status s = check_input_file(path, "the history"); !s.ok()) return s;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Status::error(path + ": cannot open the history (" + std::strerror(errno) + ")");
  FileSource input(file, true);
  return parse_guarded(input, path);
}

Result<History> parse_history_text(std::string_view text, std::string source) {
  TextSource input(text);
  return parse_guarded(input, source);
}

}  // namespace lockstep::checker
