// Redis's strict integer syntax for protocol lengths (util.c string2ll).
//
// RESP length fields ("*3", "$5") are parsed exactly as Redis parses them, so that the request
// parser accepts and refuses the same bytes as a real redis-server: an optional '-', then either
// a single "0" or a digit 1-9 followed by digits; no '+', no leading zeros, no spaces, at most 20
// characters, and the value must fit in int64_t.
#ifndef LOCKSTEP_SIM_RESP_PARSE_INT_H_
#define LOCKSTEP_SIM_RESP_PARSE_INT_H_

#include <cstdint>
#include <optional>
#include <string_view>

namespace lockstep::resp {

// The value of `text` under Redis's string2ll rules, or nullopt if Redis would refuse it.
std::optional<int64_t> redis_string_to_int64(std::string_view text);

}  // namespace lockstep::resp

#endif  // LOCKSTEP_SIM_RESP_PARSE_INT_H_
