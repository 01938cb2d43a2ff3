// zstd streams for history files (Debian's libzstd): a history written with `run --compress`
// is one zstd frame of the JSON Lines text, and every reader of a history (check, report) takes
// either form, told apart by the frame's magic number, not by the file's name.
//
//   ZstdWriter w(file);                 // compresses what it is given into `file`
//   w.write(text); ...; w.finish();     // finish() ends the frame
//
//   ZstdReader r(file, first_bytes);    // decompresses `file`, whose first bytes were read already
//   r.read(out, n);                     // up to n bytes of text; 0 at the end
#ifndef LOCKSTEP_SIM_CORE_ZSTD_FILE_H_
#define LOCKSTEP_SIM_CORE_ZSTD_FILE_H_

#include <cstdint>
#include <cstdio>
#include <istream>
#include <memory>
#include <string>
#include <string_view>

#include "sim/core/status.h"

namespace lockstep {

// True when `first_bytes` begin with a zstd frame's magic number (28 b5 2f fd).
bool is_zstd(std::string_view first_bytes);

// The file name's suffix a compressed history carries: "history.jsonl.zst".
inline constexpr std::string_view kZstdSuffix = ".zst";

class ZstdWriter {
 public:
  // Level 1 (zstd's fastest standard level): a history compresses about 19x at 700+ MB/s.
  static constexpr int kLevel = 1;
  // `file` stays the caller's to close.
  explicit ZstdWriter(std::FILE* file);
  ~ZstdWriter();
  ZstdWriter(const ZstdWriter&) = delete;
  ZstdWriter& operator=(const ZstdWriter&) = delete;

  // Compresses `text` and writes what zstd has ready. Errors are sticky: after one, every call
  // returns it again.
  Status write(std::string_view text);
  // Ends the frame and writes the rest. REQUIRES: called once, last.
  Status finish();

 private:
  Status drain(std::string_view text, bool end);
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

class ZstdReader {
 public:
  // Reads a frame (or frames, one after another) from `file`, whose first bytes `prefix` the
  // caller read already to recognize it. `file` stays the caller's to close.
  ZstdReader(std::FILE* file, std::string_view prefix);
  ~ZstdReader();
  ZstdReader(const ZstdReader&) = delete;
  ZstdReader& operator=(const ZstdReader&) = delete;

  // Up to `size` bytes of the decompressed text into `out`; 0 at the end. Errors say what is
  // wrong with the stream ("not a valid zstd stream: ...", "the zstd stream ends in the middle
  // of a frame") without a file name: the caller adds it.
  Result<size_t> read(char* out, size_t size);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A file's text, decompressed when the file is a zstd stream (told by its first bytes).
class TextReader {
 public:
  // `file` stays the caller's to close.
  explicit TextReader(std::FILE* file);
  ~TextReader();
  TextReader(const TextReader&) = delete;
  TextReader& operator=(const TextReader&) = delete;

  bool compressed() const { return zstd_ != nullptr; }
  // Up to `size` bytes of the text into `out`; 0 at the end. Errors say what went wrong without
  // a file name: "read failed: <reason>", or ZstdReader's.
  Result<size_t> read(char* out, size_t size);

 private:
  std::FILE* file_;
  std::string unread_;  // the first bytes, read to look for the magic number
  std::unique_ptr<ZstdReader> zstd_;
};

// A file's text as a std::istream, decompressed when the file is a zstd stream. A stream that
// ends early because the file could not be read or decompressed sets error().
class TextInput {
 public:
  // Errors name the path: "PATH: cannot open: <reason>".
  static Result<std::unique_ptr<TextInput>> open(const std::string& path);
  ~TextInput();
  TextInput(const TextInput&) = delete;
  TextInput& operator=(const TextInput&) = delete;

  std::istream& stream();
  // OK, or why the text ended before the file did, naming the path.
  Status error() const;

 private:
  TextInput();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_ZSTD_FILE_H_
