// HistoryBuilder: a history's events, one at a time, into a History.
//
// Every event reaches the checkers through here, whichever way it comes: the history reader
// (history_parse.h) parses each line of a file into fields and hands them over; a run that checks
// its own history (harness/scenario/direct_history.h) hands over the same fields straight from
// its recorder, without writing or parsing text. Either way each event passes the same checks
// and becomes the same records, line numbers included, so a verdict cannot depend on the way.
//
// The caller numbers the lines (`line`, the header is 1) and prefixes errors with the source and
// the line, as the reader does.
#ifndef LOCKSTEP_CHECKER_HISTORY_BUILDER_H_
#define LOCKSTEP_CHECKER_HISTORY_BUILDER_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/history.h"
#include "checker/history_fields.h"
#include "sim/core/status.h"

namespace lockstep::checker {

namespace internal {
class LineParser;
}

class HistoryBuilder {
 public:
  explicit HistoryBuilder(std::string source);
  ~HistoryBuilder();
  HistoryBuilder(const HistoryBuilder&) = delete;
  HistoryBuilder& operator=(const HistoryBuilder&) = delete;

  // The header line (JSON text).
  Status header(std::string_view line);
  // One event line, as fields.
  Status event(const fields::LineFields& f);
  // One event line, as JSON text (a rare event a caller has only as text).
  Status event_line(std::string_view line);
  // Ends the history: holds still open at a footer with complete: true end there.
  Status finish();
  History take() { return std::move(history_); }

  // The number of the current line: the caller increments it for every line, blank ones too.
  uint32_t line = 0;

 private:
  struct Required {
    uint64_t bit;
    const char* name;
  };
  Status require(const fields::LineFields& f, std::initializer_list<Required> fields);
  Status on_invoke(const fields::LineFields& f);
  Status on_complete(const fields::LineFields& f);
  Status on_hold_begin(const fields::LineFields& f);
  Status on_hold_end(const fields::LineFields& f);
  Status on_write(const fields::LineFields& f);
  Status on_exec(const fields::LineFields& f);
  Status on_state(const fields::LineFields& f);
  Status on_fault(const fields::LineFields& f);
  Status bad(const std::string& what) { return Status::error(what); }
  Sym sym(std::string_view text) { return history_.syms.intern(text); }
  uint32_t pool(const std::vector<std::string_view>& keys);
  // pool() for a script run's keys: a run's keys repeat those of a recent run (a lock's name and
  // channel), so once the history is large (its runs are packed) an equal list already in the pool
  // is reused. A small direct-mapped table of recent lists (by hash) bounds what this remembers.
  uint32_t run_keys(const std::vector<std::string_view>& keys);

  History history_;
  std::vector<std::pair<uint32_t, uint32_t>> recent_keys_;  // (begin, count) in key_pool, by hash
  bool ended_ = false;
  TimeUs last_t_ = 0;
  // Open holds per thread (indexed by the thread's Sym): (lock, index into history_.holds), most
  // recent last. A thread holds few locks at once, so a scan is cheapest.
  std::vector<std::vector<std::pair<Sym, uint32_t>>> open_holds_;
  std::vector<std::pair<Sym, uint32_t>>& open_of(Sym thread) {
    if (thread >= open_holds_.size()) open_holds_.resize(thread + 1);
    return open_holds_[thread];
  }
  // For event_line, made on first use.
  std::unique_ptr<internal::LineParser> parser_;
  std::unique_ptr<fields::LineFields> line_fields_;
  std::string line_buffer_;
};

}  // namespace lockstep::checker

#endif  // LOCKSTEP_CHECKER_HISTORY_BUILDER_H_
