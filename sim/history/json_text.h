// JSON text written straight into a string, without building a JSON object per value.
//
// The history writer produces millions of lines per run; building an nlohmann::json per event
// would dominate the cost. These helpers append correctly escaped JSON: strings are escaped per
// RFC 8259; bytes that are not valid UTF-8 (Redis values are binary-safe) are written as \u00XX,
// i.e. read back as the Latin-1 character of that byte.
#ifndef LOCKSTEP_SIM_HISTORY_JSON_TEXT_H_
#define LOCKSTEP_SIM_HISTORY_JSON_TEXT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace lockstep::history {

// Appends `s` as a quoted, escaped JSON string.
void append_json_string(std::string& out, std::string_view s);
// True if append_json_string copies every byte of `s` unchanged (printable ASCII other than
// '"' and '\\'), so that `"` + s + `"` is its JSON text.
bool json_plain(std::string_view s);
// What a JSON reader gets back from append_json_string(s): `s` itself unless `s` has bytes that
// are not valid UTF-8, each of which comes back as the UTF-8 encoding of U+00XX. Returns false
// and leaves `out` alone when that is `s` itself (the usual case).
bool json_read_back(std::string_view s, std::string& out);
// Appends a decimal integer.
void append_json_int(std::string& out, int64_t v);

}  // namespace lockstep::history

#endif  // LOCKSTEP_SIM_HISTORY_JSON_TEXT_H_
