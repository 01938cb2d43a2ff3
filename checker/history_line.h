// One line of a history, as fields (internal to the history's readers: the checker's and the
// report's timeline).
//
// LineParser reads one JSONL event line with simdjson's On-Demand API into a LineFields: the
// known fields as views into the parser's buffer (valid until the next line), a bit per field
// present, and type errors naming the field. A field the line does not have keeps the previous
// line's value: read it only where its bit is present. It knows JSON and field types, not event
// semantics; history_parse.cc turns LineFields into records, checker/report/timeline.cc into the
// page's layers. A user must compile simdjson's header as the checker does (link simdjson::simdjson).
#ifndef LOCKSTEP_CHECKER_HISTORY_LINE_H_
#define LOCKSTEP_CHECKER_HISTORY_LINE_H_

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "checker/history.h"
#include "checker/history_fields.h"
#include "sim/core/status.h"

namespace lockstep::checker::internal {

namespace od = simdjson::ondemand;

using namespace fields;  // NOLINT: the reader's own vocabulary

// Parses one event line. Errors carry the field name and what was wrong, without the location
// (the caller prefixes "<source>:<line>: ").
class LineParser {
 public:
  Status parse(const char* data, size_t len, size_t capacity, LineFields& out);

 private:
  Status field(std::string_view name, od::value value, LineFields& out);
  Status get_int(std::string_view name, od::value& value, int64_t& out);
  Status get_str(std::string_view name, od::value& value, std::string_view& out);
  Status get_bool(std::string_view name, od::value& value, bool& out);
  Status get_keys(od::value& value, LineFields& out);
  Status get_first_arg(od::value& value, LineFields& out);
  Status get_reply(od::value& value, LineFields& out);
  Status get_state_value(od::value& value, LineFields& out);
  Status get_params(od::value& value, LineFields& out);
  Status type_error(std::string_view name, const char* expected, od::value& value);
  // A field the line already had (a duplicate key is ambiguous: which value counts?).
  Status repeated(std::string_view name, uint64_t bit, const LineFields& out);

  od::parser parser_;
  bool args_seen_ = false;  // `args` sets no bit when its first element is not a string
};

}  // namespace lockstep::checker::internal

#endif  // LOCKSTEP_CHECKER_HISTORY_LINE_H_
