// The history reader: the header with nlohmann/json, event lines through LineParser into fields,
// and the fields through HistoryBuilder into records, on one thread or, for `check -j 2` and up,
// two (one parses while the other builds; ReadOptions).
#include "checker/history_parse.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <system_error>
#include <thread>

#include "checker/history_builder.h"
#include "checker/history_line.h"
#include "sim/core/assert.h"
#include "sim/core/files.h"
#include "sim/core/zstd_file.h"

namespace lockstep::checker {
namespace {

using fields::LineFields;
using internal::LineParser;
using namespace fields;  // NOLINT: the field bits, for the batch encoding

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
  // `owned`: closed at the end (a file the reader opened; not stdin). `on_read` may be empty.
  FileSource(std::FILE* file, bool owned, std::function<void(uint64_t)> on_read = {})
      : file_(file), owned_(owned), on_read_(std::move(on_read)), text_(file) {}
  ~FileSource() override {
    if (owned_) std::fclose(file_);
  }
  // A file may still be growing (or be a pipe): not known.
  std::optional<size_t> size_hint() const override { return std::nullopt; }
  Result<size_t> read(char* out, size_t size) override {
    Result<size_t> n = text_.read(out, size);
    if (n.ok() && on_read_) {
      const off_t at = ftello(file_);
      if (at >= 0) on_read_(static_cast<uint64_t>(at));
    }
    if (n.ok()) return n;
    return Status::error(text_.compressed() ? "cannot read the compressed history: " + n.status().message()
                                            : "cannot read the history (" + n.status().message() + ")");
  }

 private:
  std::FILE* file_;
  bool owned_;
  std::function<void(uint64_t)> on_read_;
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

// "<source>:<line>: <message>".
Status located_at(const std::string& source, uint32_t line, const Status& s) {
  return Status::error(source + ":" + std::to_string(line) + ": " + s.message());
}

// Splits the input into lines through a buffer of fixed size (about 5 MiB), so the reader needs
// memory for the records it keeps, not for the file: a history is never held whole. Lines are
// numbered from 1, blank ones included; the first non-blank line is the header.
class LineSplitter {
 public:
  LineSplitter(ByteSource& input, const std::string& source) : input_(input), source_(source) {
    // A small input of known size gets a buffer of its own size (a fuzzer parses hundreds of
    // thousands of tiny ones): the whole input fits, with one byte left to see its end.
    const std::optional<size_t> hint = input.size_hint();
    const size_t full = kReadBytes + kMaxHistoryLineBytes + 1;
    capacity_ = hint.has_value() ? std::min(full, *hint + 1) : full;
    buffer_.reset(new char[capacity_ + simdjson::SIMDJSON_PADDING]);
    std::memset(buffer_.get() + capacity_, 0, simdjson::SIMDJSON_PADDING);
  }

  // Calls on_header(line, text) for the header, then on_event(line, start, len, padded) for each
  // event line (`padded`: the readable bytes from `start`, simdjson's padding included), until
  // the input ends or a call fails. Errors of the splitter itself are prefixed with the source
  // (and the line, where there is one); the callbacks' errors are returned as they are.
  template <typename OnHeader, typename OnEvent>
  Status run(OnHeader on_header, OnEvent on_event) {
    char* const data = buffer_.get();
    size_t begin = 0, end = 0;  // the unread bytes: [begin, end)
    bool at_end = false;
    auto on_line = [&](const char* start, size_t len) -> Status {
      if (line_ == UINT32_MAX) return located(Status::error("too many lines"));
      ++line_;
      if (len > 0 && start[len - 1] == '\r') --len;
      size_t first = 0;
      while (first < len && (start[first] == ' ' || start[first] == '\t')) ++first;
      if (first == len) return Status();  // blank line
      if (len > kMaxHistoryLineBytes) return located(Status::error("line longer than 1 MiB"));
      if (!have_header_) {
        have_header_ = true;
        return on_header(line_, std::string_view(start, len));
      }
      return on_event(line_, start, len, capacity_ + simdjson::SIMDJSON_PADDING - static_cast<size_t>(start - data));
    };
    for (;;) {
      const void* nl = std::memchr(data + begin, '\n', end - begin);
      if (nl != nullptr) {
        const size_t len = static_cast<const char*>(nl) - (data + begin);
        if (Status s = on_line(data + begin, len); !s.ok()) return s;
        begin += len + 1;
        continue;
      }
      if (at_end) {
        if (begin < end) {
          in_unterminated_ = true;  // the file ends inside this line: it may have been cut
          if (Status s = on_line(data + begin, end - begin); !s.ok()) return s;
        }
        break;
      }
      if (end - begin > kMaxHistoryLineBytes + 1) {  // no newline yet: the line is too long
        ++line_;
        return located(Status::error("line longer than 1 MiB"));
      }
      std::memmove(data, data + begin, end - begin);
      end -= begin;
      begin = 0;
      LS_ASSERT(end < capacity_);  // room to read, or to see the end (an exact hint leaves one byte)
      Result<size_t> n = input_.read(data + end, capacity_ - end);
      if (!n.ok()) return Status::error(source_ + ": " + n.status().message());
      if (n.value() == 0) at_end = true;
      end += n.value();
    }
    if (!have_header_) return Status::error(source_ + ": empty history (expected a header line)");
    return Status();
  }

  // The number of lines seen so far (all of them, once run returned ok).
  uint32_t lines() const { return line_; }
  // True while the line being handed over is the last and has no newline: a file cut short (a
  // run killed while writing, a disk that filled) ends that way.
  bool in_unterminated_last_line() const { return in_unterminated_; }

 private:
  Status located(const Status& s) const { return located_at(source_, line_, s); }

  ByteSource& input_;
  const std::string& source_;
  size_t capacity_ = 0;
  std::unique_ptr<char[]> buffer_;
  uint32_t line_ = 0;
  bool have_header_ = false;
  bool in_unterminated_ = false;
};

// One thread: each line is parsed and built into records before the next is read.
Result<History> parse_serial(ByteSource& input, const std::string& source) {
  uint32_t cut_line = 0;
  HistoryBuilder reader(source);
  LineParser parser;
  LineFields fields;
  LineSplitter splitter(input, source);
  Status s = splitter.run(
      [&](uint32_t line, std::string_view text) {
        reader.line = line;
        Status st = reader.header(text);
        return st.ok() ? st : located_at(source, line, st);
      },
      [&](uint32_t line, const char* start, size_t len, size_t padded) {
        reader.line = line;
        Status st = parser.parse(start, len, padded, fields);
        if (!st.ok() && splitter.in_unterminated_last_line()) {
          cut_line = line;  // a cut, not a bad line: left out, and the history has no end
          return Status();
        }
        if (st.ok()) st = reader.event(fields);
        return st.ok() ? st : located_at(source, line, st);
      });
  if (!s.ok()) return s;
  reader.line = splitter.lines();
  if (Status st = reader.finish(); !st.ok()) return located_at(source, reader.line, st);
  History h = reader.take();
  h.cut_line = cut_line;
  return h;
}

// The fields of LineFields that a present bit announces, for the batch encoding below.
struct IntField {
  uint64_t bit;
  int64_t LineFields::*member;
};
struct StrField {
  uint64_t bit;
  std::string_view LineFields::*member;
};
constexpr IntField kIntFields[] = {
    {kT, &LineFields::t},           {kId, &LineFields::id},         {kOpInt, &LineFields::op_int},
    {kLease, &LineFields::lease_ms}, {kWait, &LineFields::wait_ms},  {kWatchdog, &LineFields::watchdog_ms},
    {kCount, &LineFields::count},   {kToken, &LineFields::token},   {kValidity, &LineFields::validity_ms},
    {kSeq, &LineFields::seq},       {kLocal, &LineFields::local_ms}, {kReceivers, &LineFields::receivers},
    {kFault, &LineFields::fault}};
constexpr StrField kStrFields[] = {
    {kType, &LineFields::type},       {kThread, &LineFields::thread},   {kOwner, &LineFields::owner},
    {kLock, &LineFields::lock},       {kOpStr, &LineFields::op_str},    {kMode, &LineFields::mode},
    {kOutcome, &LineFields::outcome}, {kError, &LineFields::error},     {kReason, &LineFields::reason},
    {kResource, &LineFields::resource}, {kNode, &LineFields::node},     {kConn, &LineFields::conn},
    {kCommand, &LineFields::command}, {kScript, &LineFields::script},   {kKey, &LineFields::key},
    {kChannel, &LineFields::channel}, {kMessage, &LineFields::message}, {kEvent, &LineFields::event},
    {kKind, &LineFields::kind},       {kTarget, &LineFields::target},   {kPhase, &LineFields::phase},
    {kFirstArg, &LineFields::first_arg}};

// Lines parsed by the reading thread and handed to the building one, as the present fields of
// each line packed one after another into a byte string: the building thread reads them in
// order from memory the other core wrote once (handing over whole LineFields records moved
// about six times the bytes between the cores and took longer than one thread alone).
struct Batch {
  static constexpr size_t kLines = 1024;

  std::string bytes;         // the encoded lines
  size_t count = 0;          // how many
  uint32_t header_line = 0;  // 0: no header in this batch
  std::string header;
  Status error;              // the reading thread's, after the `count` lines (already located)
  bool last = false;         // nothing follows this batch
  uint32_t lines_total = 0;  // with `last` and no error: every line the input had
  uint32_t cut_line = 0;     // with `last`: the unterminated last line that did not parse (History::cut_line)

  void clear() {
    bytes.clear();
    count = 0;
    header_line = 0;
    header.clear();
    error = Status();
    last = false;
    lines_total = 0;
    cut_line = 0;
  }

  void put(uint32_t line, const LineFields& f) {
    put_raw(line);
    put_raw(f.present);
    const uint8_t flags = static_cast<uint8_t>(f.acquired | f.released << 1 | f.renewed << 2 | f.fenced << 3 |
                                               f.accepted << 4 | f.complete << 5 | f.value_null << 6 | f.blocked << 7);
    put_raw(flags);
    for (const IntField& x : kIntFields) {
      if (f.present & x.bit) put_raw(f.*x.member);
    }
    for (const StrField& x : kStrFields) {
      if (f.present & x.bit) put_str(f.*x.member);
    }
    if (f.present & kReply) {
      put_raw(f.reply);
      put_raw(f.reply_int);
    }
    if (f.present & kValue) {
      put_str(f.value_type);
      put_raw(f.value_expire_at_ms);
      put_list(f.members);
      put_list(f.values);
    }
    if (f.present & kKeys) put_list(f.keys);
    if (f.present & kParams) {
      put_raw(static_cast<uint32_t>(f.params.size()));
      for (const auto& [k, v] : f.params) {
        put_str(k);
        put_raw(v);
      }
    }
    ++count;
  }

  // Decodes the line at `*at` into `f` (its views into `bytes`) and moves `*at` past it.
  uint32_t get(size_t* at, LineFields& f) const {
    f.reset();
    const char* p = bytes.data() + *at;
    const uint32_t line = get_raw<uint32_t>(p);
    f.present = get_raw<uint64_t>(p);
    const uint8_t flags = get_raw<uint8_t>(p);
    f.acquired = flags & 1;
    f.released = flags & 2;
    f.renewed = flags & 4;
    f.fenced = flags & 8;
    f.accepted = flags & 16;
    f.complete = flags & 32;
    f.value_null = flags & 64;
    f.blocked = flags & 128;
    for (const IntField& x : kIntFields) {
      if (f.present & x.bit) f.*x.member = get_raw<int64_t>(p);
    }
    for (const StrField& x : kStrFields) {
      if (f.present & x.bit) f.*x.member = get_str(p);
    }
    if (f.present & kReply) {
      f.reply = get_raw<ReplyKind>(p);
      f.reply_int = get_raw<int64_t>(p);
    }
    if (f.present & kValue) {
      f.value_type = get_str(p);
      f.value_expire_at_ms = get_raw<int64_t>(p);
      get_list(p, f.members);
      get_list(p, f.values);
    }
    if (f.present & kKeys) get_list(p, f.keys);
    if (f.present & kParams) {
      const uint32_t n = get_raw<uint32_t>(p);
      for (uint32_t i = 0; i < n; ++i) {
        const std::string_view k = get_str(p);
        f.params.emplace_back(k, get_raw<int64_t>(p));
      }
    }
    *at = static_cast<size_t>(p - bytes.data());
    return line;
  }

 private:
  template <typename T>
  void put_raw(T value) {
    bytes.append(reinterpret_cast<const char*>(&value), sizeof value);
  }
  void put_str(std::string_view v) {
    put_raw(static_cast<uint32_t>(v.size()));
    bytes.append(v);
  }
  void put_list(const std::vector<std::string_view>& list) {
    put_raw(static_cast<uint32_t>(list.size()));
    for (std::string_view v : list) put_str(v);
  }
  template <typename T>
  static T get_raw(const char*& p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    p += sizeof value;
    return value;
  }
  static std::string_view get_str(const char*& p) {
    const uint32_t n = get_raw<uint32_t>(p);
    const std::string_view v(p, n);
    p += n;
    return v;
  }
  static void get_list(const char*& p, std::vector<std::string_view>& list) {
    const uint32_t n = get_raw<uint32_t>(p);
    for (uint32_t i = 0; i < n; ++i) list.push_back(get_str(p));
  }
};

// Two threads: one reads and parses lines (JSON, fields), the other builds the records (on B3's
// history the reading thread has a little more of the work). The records are built in the
// file's order, as one thread builds them, and the first error in line order is the one reported.
class Pipeline {
 public:
  Pipeline(ByteSource& input, const std::string& source) : input_(input), source_(source) {
    for (Batch& b : batches_) free_.push_back(&b);
  }
  ~Pipeline() { stop(); }

  // Starts the reading thread. False if the system will not give one (an address-space limit):
  // nothing was read yet, so the caller reads on one thread instead.
  bool start() {
    try {
      reading_ = std::thread([this] { read(); });
    } catch (const std::system_error&) {
      return false;
    }
    return true;
  }

  // REQUIRES: start() returned true.
  Result<History> run() {
    LS_ASSERT(reading_.joinable());
    uint32_t cut_line = 0;
    HistoryBuilder reader(source_);
    LineFields fields;
    for (;;) {
      Batch* batch = take(full_);
      LS_ASSERT(batch != nullptr);  // only this thread stops the reading
      if (batch->header_line != 0) {
        reader.line = batch->header_line;
        if (Status s = reader.header(batch->header); !s.ok()) return stop_with(located_at(source_, reader.line, s));
      }
      size_t at = 0;
      for (size_t i = 0; i < batch->count; ++i) {
        reader.line = batch->get(&at, fields);
        if (Status s = reader.event(fields); !s.ok()) return stop_with(located_at(source_, reader.line, s));
      }
      if (!batch->error.ok()) return stop_with(batch->error);
      if (batch->last) {
        reader.line = batch->lines_total;
        cut_line = batch->cut_line;
        break;
      }
      give(free_, batch);
    }
    stop();
    if (Status s = reader.finish(); !s.ok()) return located_at(source_, reader.line, s);
    History h = reader.take();
    h.cut_line = cut_line;
    return h;
  }

 private:
  // The reading thread.
  void read() {
    Batch* batch = take(free_);
    if (batch == nullptr) return;
    batch->clear();
    LineParser parser;
    LineFields fields;
    Status s;
    uint32_t lines = 0;
    uint32_t cut_line = 0;
    try {
      LineSplitter splitter(input_, source_);
      s = splitter.run(
          [&](uint32_t line, std::string_view text) {
            batch->header_line = line;
            batch->header.assign(text);
            return Status();
          },
          [&](uint32_t line, const char* start, size_t len, size_t padded) {
            if (Status st = parser.parse(start, len, padded, fields); !st.ok()) {
              if (!splitter.in_unterminated_last_line()) return located_at(source_, line, st);
              cut_line = line;  // a cut, not a bad line (parse_serial does the same)
              return Status();
            }
            batch->put(line, fields);
            if (batch->count < Batch::kLines) return Status();
            give(full_, batch);
            batch = take(free_);
            if (batch == nullptr) return Status::error("stopped");  // the builder gave up: not reported
            batch->clear();
            return Status();
          });
      lines = splitter.lines();
    } catch (const std::bad_alloc&) {
      s = Status::error(source_ + ": out of memory reading the history");
    }
    if (batch == nullptr) return;
    batch->error = s;
    batch->last = true;
    batch->lines_total = lines;
    batch->cut_line = cut_line;
    give(full_, batch);
  }

  Batch* take(std::deque<Batch*>& queue) {
    std::unique_lock<std::mutex> lock(mutex_);
    changed_.wait(lock, [&] { return stopped_ || !queue.empty(); });
    if (stopped_) return nullptr;
    Batch* b = queue.front();
    queue.pop_front();
    return b;
  }
  void give(std::deque<Batch*>& queue, Batch* batch) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue.push_back(batch);
    }
    changed_.notify_all();
  }
  Status stop_with(Status s) {
    stop();
    return s;
  }
  // Ends the reading thread (it may be waiting for a free batch) and joins it.
  void stop() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopped_ = true;
    }
    changed_.notify_all();
    if (reading_.joinable()) reading_.join();
  }

  ByteSource& input_;
  const std::string& source_;
  Batch batches_[3];
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Batch*> free_, full_;
  bool stopped_ = false;
  std::thread reading_;
};

// Out of memory while the records grow is the machine's limit, said as such (not a crash).
Result<History> parse_guarded(ByteSource& input, const std::string& source, int threads) {
  try {
    if (threads >= 2) {
      Pipeline pipeline(input, source);
      if (pipeline.start()) return pipeline.run();
    }
    return parse_serial(input, source);
  } catch (const std::bad_alloc&) {
    return Status::error(source + ": out of memory reading the history");
  }
}

}  // namespace

Result<History> parse_history_file(const std::string& path, const ReadOptions& options) {
  // Only a regular file is read on two threads: on a pipe that stays open, a builder that found
  // an error would wait for the reading thread's next read (4 MiB more, or the end) to return.
  if (path == "-") {  // a pipe: read once, in pieces like any file
    FileSource input(stdin, false);
    return parse_guarded(input, "<stdin>", 1);
  }
  if (Status s = check_input_file(path, "the history", /*allow_pipe=*/true); !s.ok()) return s;
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return Status::error(path + ": cannot open the history (" + std::strerror(errno) + ")");
  struct stat st {};
  const bool regular = fstat(fileno(file), &st) == 0 && S_ISREG(st.st_mode);
  FileSource input(file, true, options.on_read);
  return parse_guarded(input, path, regular ? options.threads : 1);
}

Result<History> parse_history_text(std::string_view text, std::string source, const ReadOptions& options) {
  TextSource input(text);
  return parse_guarded(input, source, options.threads);
}

}  // namespace lockstep::checker
