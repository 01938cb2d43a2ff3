// DirectHistory: a run's history handed to the checkers as it is recorded, with no text.
//
// A run that needs only its verdicts (explore's seeds, shrinking, counterfactual replays) records
// into this sink instead of a history::Writer. Each event becomes the fields the history reader
// would have parsed from its line and goes through the same checker::HistoryBuilder, so the
// records, line numbers, verdicts and explanations are those the text would give
// (direct_history_test.cc compares the two on every library scenario). What the text does to a
// string is done here too: bytes that are not UTF-8 come back as U+00XX (history/json_text.h).
//
// The history's size limit (limits.max_history_bytes) is kept with a bound: bytes_bound() is at
// least the size the text would have. A run whose bound passes the limit is run again with text
// to find out (runs are deterministic), so a limit never depends on the way either.
#ifndef LOCKSTEP_HARNESS_SCENARIO_DIRECT_HISTORY_H_
#define LOCKSTEP_HARNESS_SCENARIO_DIRECT_HISTORY_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "checker/history.h"
#include "checker/history_builder.h"
#include "checker/history_fields.h"
#include "sim/core/status.h"
#include "sim/history/recorder.h"

namespace lockstep::scenario {

class DirectHistory final : public history::EventSink {
 public:
  // `source` names the history in messages ("history.jsonl", as the text would be named).
  explicit DirectHistory(std::string source);

  // At least the number of bytes the history's text would have.
  uint64_t bytes_bound() const { return bytes_bound_; }
  // The records; an error (a recorder bug) located as the reader would locate it.
  Result<checker::History> finish();

  void header(std::string_view json) override;
  void line(TimeUs t, std::string_view json) override;
  void invoke(TimeUs t, int64_t id, const history::Invoke& e) override;
  void complete(TimeUs t, int64_t id, const history::Completion& c) override;
  void hold_begin(TimeUs t, std::string_view thread, std::string_view owner, std::string_view lock,
                  history::LockMode mode, int64_t op, int64_t token) override;
  void hold_end(TimeUs t, std::string_view thread, std::string_view lock, history::HoldEnd reason,
                history::LockMode mode) override;
  void write(TimeUs t, std::string_view thread, std::string_view owner, std::string_view lock,
             std::string_view resource, int64_t token, bool fenced, bool accepted) override;
  void exec(TimeUs t, const history::Exec& e) override;
  void expire(TimeUs t, std::string_view node, std::string_view key, int64_t local_ms) override;
  void publish(TimeUs t, std::string_view node, std::string_view channel, std::string_view message,
               int64_t receivers) override;
  void deliver(TimeUs t, std::string_view thread, std::string_view channel,
               std::string_view message) override;
  void state(TimeUs t, std::string_view node, uint64_t seq, std::string_view key,
             const std::optional<redis::KeyDump>& value) override;

 private:
  // Starts an event: the fields cleared, `t` and `type` set. False after an error (the rest of
  // the history is ignored, as the reader stops at its first bad line).
  bool begin(TimeUs t, std::string_view type);
  // Hands the event to the builder.
  void done();
  // Counts a string the text would hold into the bound.
  void count(std::string_view text);
  // `text` as the reader would get it back, counted into the bound; valid until done().
  std::string_view str(std::string_view text);
  void str(uint64_t bit, std::string_view& field, std::string_view text);
  void num(uint64_t bit, int64_t& field, int64_t value);
  void maybe_num(uint64_t bit, int64_t& field, int64_t value);
  void flag(uint64_t bit, bool& field, int8_t value);
  bool next_line();
  void fail(const Status& s);

  std::string source_;
  checker::HistoryBuilder builder_;
  checker::fields::LineFields fields_;
  bool have_header_ = false;
  Status status_;
  uint64_t bytes_bound_ = 0;
  std::string command_;             // an exec's upper-cased command name
  std::deque<std::string> scratch_;  // strings that read back differently; cleared per event
};

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_DIRECT_HISTORY_H_
