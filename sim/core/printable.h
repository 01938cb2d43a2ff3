// Text taken from input — a scenario or lock name, a file path, an error message quoting a file —
// made safe to print on a terminal.
//
// A name like "\u001b[2J all ok" printed raw clears the screen and shows a verdict nobody gave;
// a NUL cuts the output short. Everything the CLI prints that came from input goes through
// printable() (docs/cli.md#terminal-output).
#ifndef LOCKSTEP_SIM_CORE_PRINTABLE_H_
#define LOCKSTEP_SIM_CORE_PRINTABLE_H_

#include <string>
#include <string_view>

namespace lockstep {

// `text` with every control character — the bytes 0x00-0x1f and 0x7f, and the C1 controls
// U+0080-U+009F — and every byte that is not part of valid UTF-8 replaced by \xNN (lower-case
// hex, one escape per byte: ESC is \x1b, U+009B is \xc2\x9b). Everything else is kept as it is,
// backslashes included, so printable(printable(s)) == printable(s).
std::string printable(std::string_view text);

// The same, but a '\n' is kept: for multi-line text whose lines the program composed itself.
std::string printable_lines(std::string_view text);

// True when printable(text) == text.
bool is_printable(std::string_view text);

// The first control character (as above) in `text`, as its byte offset, or npos. Invalid UTF-8
// is not looked for.
size_t find_control_character(std::string_view text);

// `word` as one shell word: unchanged when it has only characters no shell treats specially,
// else in single quotes (a quote inside as '\''), so a printed command line can be pasted.
std::string shell_quote(const std::string& word);

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_PRINTABLE_H_
