// Splitting an inline request line into arguments, as Redis does (sds.c sdssplitargs).
//
// Inline requests ("SET k \"a b\"\r\n") are what a person types into telnet. Redis splits the
// line on spaces and honours two quoting styles: "double quotes" with the escapes \n \r \t \b \a
// \xHH and \<any char>, and 'single quotes' where only \' is an escape. A closing quote must be
// followed by whitespace or the end of the line; otherwise, or when a quote is never closed,
// the request is refused ("unbalanced quotes").
#ifndef LOCKSTEP_SIM_RESP_SPLIT_ARGS_H_
#define LOCKSTEP_SIM_RESP_SPLIT_ARGS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lockstep::resp {

// The arguments of one inline request line (without its line ending), or nullopt when its
// quotes are unbalanced. Bytes from the first NUL on are ignored, as in the C original.
std::optional<std::vector<std::string>> split_inline_args(std::string_view line);

// Quotes `arg` so that split_inline_args gives it back unchanged (for tests and tools).
std::string quote_inline_arg(std::string_view arg);

}  // namespace lockstep::resp

#endif  // LOCKSTEP_SIM_RESP_SPLIT_ARGS_H_
