// Writer: writes a history (docs/history-format.md) as JSON Lines, fast.
//
// Each line is built field by field straight into a buffer (no JSON objects), flushed to the file
// in large blocks. The file is written under a temporary name and renamed by finish(), so a run
// that dies half-way never leaves a history that looks complete. Lines must come in
// non-decreasing true time; the writer asserts it. A size limit turns a runaway history into a
// clear error instead of a full disk, and a line over the format's 1 MiB (a huge command
// argument, reply or key state) into a clear error instead of a history no reader takes.
#ifndef LOCKSTEP_SIM_HISTORY_WRITER_H_
#define LOCKSTEP_SIM_HISTORY_WRITER_H_

#include <array>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "sim/core/assert.h"
#include "sim/core/status.h"
#include "sim/core/time.h"

namespace lockstep {
class ZstdWriter;
}

namespace lockstep::history {

class Writer {
 public:
  // A field's key: a string literal, checked when the program is compiled to need no JSON
  // escaping, so that writing it is a copy (a key is written on every field of every line).
  // It keeps the text a field starts with, `, "key": `, written when compiling.
  class Key {
   public:
    static constexpr size_t kMaxSize = 64;
    template <size_t N>
    consteval Key(const char (&text)[N]) {  // NOLINT: implicit on purpose
      if (N - 1 > kMaxSize) throw "a history key is at most 64 bytes";
      for (size_t i = 0; i + 1 < N; ++i) {
        const char c = text[i];
        if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') throw "a history key needs no escaping";
      }
      constexpr std::string_view kOpen = ", \"";
      constexpr std::string_view kClose = "\": ";
      size_t n = 0;
      for (const char c : kOpen) field_[n++] = c;
      for (size_t i = 0; i + 1 < N; ++i) field_[n++] = text[i];
      for (const char c : kClose) field_[n++] = c;
      size_ = static_cast<uint8_t>(n);
    }
    // The key alone.
    constexpr std::string_view text() const { return field().substr(3, size_ - 6u); }
    // `, "key": `
    constexpr std::string_view field() const { return {field_.data(), size_}; }

   private:
    std::array<char, kMaxSize + 6> field_{};
    uint8_t size_ = 0;
  };

  enum class Mode : uint8_t { kMemory, kDiscard, kFile };
  // A file's bytes: the text itself, or one zstd frame of it (sim/core/zstd_file.h).
  enum class Compression : uint8_t { kNone, kZstd };
  static constexpr uint64_t kDefaultMaxBytes = uint64_t{4} << 30;
  // The format's limit on one line, without its newline (docs/history-format.md): readers refuse
  // a longer one, so the writer does not write it. A longer line fails the history like a failed
  // write (io_failed()), naming the line and its event type.
  static constexpr size_t kMaxLineBytes = size_t{1} << 20;

  // A writer that keeps everything in memory (text()) or throws it away (counting bytes).
  explicit Writer(Mode mode = Mode::kMemory, uint64_t max_bytes = kDefaultMaxBytes);
  // A writer to `path`, through `path`.tmp until finish(). The size limit counts the text's
  // bytes, compressed or not.
  static Result<std::unique_ptr<Writer>> to_file(const std::string& path, uint64_t max_bytes,
                                                 Compression compression = Compression::kNone);
  ~Writer();
  Writer(const Writer&) = delete;
  Writer& operator=(const Writer&) = delete;

  // Memory mode: lines may come out of time order (a live run learns a command's execution time
  // after later events; write_sorted_by_time() puts them in order).
  void allow_unordered() { unordered_ = true; }
  // Appends one complete line (no newline) of time t: the header, or an event.
  // REQUIRES: t >= the previous event's t.
  void append_line(std::string_view line, TimeUs t);

  // Starts the header line: {"lockstep_history": 1
  Writer& begin_header();
  // Starts an event line: {"t": t, "type": "<type>". REQUIRES: t >= the previous event's t.
  Writer& begin(TimeUs t, std::string_view type);
  Writer& str(const Key& key, std::string_view value);
  Writer& num(const Key& key, int64_t value);
  Writer& boolean(const Key& key, bool value);
  Writer& null(const Key& key);
  Writer& strings(const Key& key, std::span<const std::string> values);
  Writer& strings(const Key& key, std::span<const std::string_view> values);
  // Appends `"key": ` and returns the buffer: the caller appends one JSON value.
  std::string& value(const Key& key);
  // value() for a key known only at run time (the header's algorithm-specific fields): the key
  // is escaped as needed.
  std::string& value_of_any_key(std::string_view key);
  // Ends the line.
  void end();

  // Flushes, closes and renames the file into place. Returns an error naming the file if any
  // write failed, or if the size limit was exceeded.
  Status finish();
  // Closes and deletes the temporary file (a run that failed).
  void abandon();

  Mode mode() const { return mode_; }
  bool over_limit() const { return bytes_ > max_bytes_; }
  // Whether a write to the file has failed (a full disk, a file-size limit): the run may stop
  // at once, since finish() will only report it. io_error() names the file and the cause.
  bool io_failed() const { return !io_error_.empty(); }
  Status io_error() const;
  uint64_t bytes() const { return bytes_; }
  uint64_t lines() const { return lines_; }
  TimeUs last_t() const { return last_t_; }
  // Memory mode: everything written so far.
  const std::string& text() const { return buf_; }
  // Memory mode: forgets the text written so far (the counts and the time order stay).
  void clear() {
    LS_ASSERT(mode_ == Mode::kMemory && !in_line_);
    buf_.clear();
  }

 private:
  void key(const Key& k);
  void flush();
  // Records the cause of a failed write; the first one is kept.
  void fail_io(std::string cause);
  // Fails the history (fail_io) when `line`, without its newline, is over kMaxLineBytes.
  void check_line_size(std::string_view line);

  Mode mode_;
  uint64_t max_bytes_;
  std::string buf_;
  std::FILE* file_ = nullptr;
  std::unique_ptr<ZstdWriter> zstd_;  // set when the file is compressed
  std::string path_;
  std::string tmp_path_;
  uint64_t bytes_ = 0;
  uint64_t lines_ = 0;
  TimeUs last_t_ = 0;
  bool in_line_ = false;
  size_t line_begin_ = 0;  // where the line being built starts in buf_
  std::string io_error_;  // the first failed write's cause (strerror, or zstd's); empty: none
  bool unordered_ = false;
};

// Writes the lines of `text` (a memory writer's: the header, then events) to `out`, the events in
// non-decreasing `t`, events of equal `t` in the order they were written.
void write_sorted_by_time(std::string_view text, Writer& out);

}  // namespace lockstep::history

#endif  // LOCKSTEP_SIM_HISTORY_WRITER_H_
