// JSON text checks nlohmann's parser does not make.
#ifndef LOCKSTEP_SIM_CORE_JSON_KEYS_H_
#define LOCKSTEP_SIM_CORE_JSON_KEYS_H_

#include <optional>
#include <string>
#include <string_view>

namespace lockstep {

// The JSON pointer of the first key that appears twice in one object of `text` ("/a/0/b"), if
// any. nlohmann keeps the last of duplicate keys silently; an input must say each thing once
// (a scenario, a history's header, a result.json, an explore.json). For text that does not
// parse, only what comes before the error is looked at; the caller's own parse reports the rest.
std::optional<std::string> duplicate_key(std::string_view text);

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_JSON_KEYS_H_
