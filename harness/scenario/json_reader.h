// Reading a JSON document with errors that say exactly where and what.
//
// Every error names the file, the JSON pointer of the offending value
// (/faults/schedule/3/duration_ms), what was expected and what was found. The first error wins:
// after it, readers return defaults and record nothing more, so parsing code stays linear
// (read everything, then check errors.ok() once). ObjectReader also reports fields nobody read,
// which is how unknown fields become errors.
#ifndef LOCKSTEP_HARNESS_SCENARIO_JSON_READER_H_
#define LOCKSTEP_HARNESS_SCENARIO_JSON_READER_H_

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/status.h"

namespace lockstep::scenario {

// Messages never carry a control character or invalid UTF-8 from the input: whatever they quote
// (a key, a name, a file path) goes through printable() (sim/core/printable.h).
class Errors {
 public:
  explicit Errors(std::string file) : file_(std::move(file)) {}
  // "<file>: <path>: expected <expected>, found <found>"
  void expected(const std::string& path, const std::string& expected, const nlohmann::json& found);
  // "<file>: <path>: <message>"
  void message(const std::string& path, const std::string& message);
  // "<file>: <text>" (text already names its path).
  void raw(const std::string& text);
  bool ok() const { return first_.empty(); }
  Status status() const { return ok() ? Status::ok_status() : Status::error(first_); }
  const std::string& file() const { return file_; }

 private:
  std::string file_;
  std::string first_;
};

// How a value is shown in "found ...": -5, "abc", true, null, an object, an array of 3.
std::string describe(const nlohmann::json& value);

// Names — the scenario's, a lock's, a resource's, the generator's lock prefix, a lose_reply
// match — are at most kMaxNameBytes bytes (UTF-8) and hold no control character (U+0000-U+001F,
// U+007F-U+009F): they go into every history line and onto the terminal (docs/scenarios.md#names).
inline constexpr size_t kMaxNameBytes = 256;
// Reports a `name` (found at `path`) that is longer than `max_bytes` or holds a control
// character; `what` says what it names ("a lock name"). True when the name is fine.
bool check_name(const std::string& name, const std::string& path, Errors& errors,
                const std::string& what, size_t max_bytes = kMaxNameBytes);

class ObjectReader {
 public:
  // Reports an error if `j` is not an object.
  ObjectReader(const nlohmann::json& j, std::string path, Errors& errors);

  bool valid() const { return object_ != nullptr; }
  bool has(const std::string& key);
  std::string path(const std::string& key) const { return path_ + "/" + key; }
  const std::string& path() const { return path_; }
  Errors& errors() { return errors_; }

  // The raw field (nullptr if absent); marks it as read.
  const nlohmann::json* get(const std::string& key);
  // Typed fields. An absent optional field gives `def`; a present one must have the type and
  // lie in [lo, hi] ("milliseconds" etc. go into the message via `unit`).
  int64_t integer(const std::string& key, int64_t def, int64_t lo, int64_t hi,
                  const std::string& unit = "");
  int64_t required_integer(const std::string& key, int64_t lo, int64_t hi,
                           const std::string& unit = "");
  std::string string(const std::string& key, const std::string& def);
  std::string required_string(const std::string& key);
  std::string choice(const std::string& key, const std::string& def,
                     const std::vector<std::string>& allowed);
  bool boolean(const std::string& key, bool def);
  // Reports the first field that was never read as unknown, listing the fields the parser
  // asked for here (call it after reading every field this object may have).
  void finish();

 private:
  const nlohmann::json* object_ = nullptr;
  std::string path_;
  Errors& errors_;
  std::set<std::string> read_;   // fields present and read
  std::set<std::string> asked_;  // fields the parser knows here (the allowed set)
};

// "an integer in [lo, hi]" with a unit ("milliseconds").
std::string integer_expectation(int64_t lo, int64_t hi, const std::string& unit);
// Checks an integer value (not a field) at `path`.
int64_t read_integer(const nlohmann::json& j, const std::string& path, Errors& errors,
                     int64_t lo, int64_t hi, const std::string& unit = "");

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_JSON_READER_H_
