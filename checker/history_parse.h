// Reading a history file (docs/history-format.md) into a History.
//
// The reader is strict, because a checker that guesses could call a broken history `ok`: every
// malformed line (not JSON, not an object, a missing or wrongly typed field, an unknown event
// type, time going backwards, a complete or hold_end without its start) is an error naming the
// source, the line number, the field, what was expected and what was found. Unknown extra fields
// inside known events are ignored, as the format promises. A history without its footer parses
// (History::complete is false): the checkers then say `unknown` where the missing part matters.
//
// Limits: a line is at most 1 MiB; a history at most 2^32-1 lines. Numbers the checkers add up
// are bounded so no sum overflows: times `t` up to 2^61 µs (73,000 years), durations (leases,
// waits, bounds, fault parameters named *_ms) up to 2^42 ms (139 years), node-local clocks up to ±2^51 ms.
#ifndef LOCKSTEP_CHECKER_HISTORY_PARSE_H_
#define LOCKSTEP_CHECKER_HISTORY_PARSE_H_

#include <functional>
#include <string>
#include <string_view>

#include "checker/history.h"
#include "sim/core/status.h"

namespace lockstep::checker {

constexpr size_t kMaxHistoryLineBytes = 1 << 20;
constexpr int64_t kMaxHistoryTimeUs = int64_t{1} << 61;
constexpr int64_t kMaxHistoryDurationMs = int64_t{1} << 42;
constexpr int64_t kMaxHistoryLocalMs = int64_t{1} << 51;

struct ReadOptions {
  // 2 or more, for a regular file or a text (a pipe is read on one thread): one thread reads and
  // parses the lines while another builds the records. On B3's 1 M-operation history the reading
  // took about a third less wall time and a fifth more CPU (docs/performance.md, B3). The
  // records, the verdicts and the first error reported are the same either way.
  int threads = 1;
  // Called after each piece read from a file (about 4 MiB; of the compressed bytes for a zstd
  // file) with the bytes of the file read so far: for a progress line. It runs on the thread that
  // reads, which is not the caller's when `threads` is 2 or more, and never after the parse returned.
  std::function<void(uint64_t file_bytes_read)> on_read;
};

// Reads and parses the JSONL history at `path`; "-" reads standard input (named "<stdin>").
Result<History> parse_history_file(const std::string& path, const ReadOptions& options = {});

// Parses a history held in memory (e.g. what a recorder just wrote); `source` names it in errors.
Result<History> parse_history_text(std::string_view text, std::string source = "<memory>",
                                   const ReadOptions& options = {});

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_HISTORY_PARSE_H_
