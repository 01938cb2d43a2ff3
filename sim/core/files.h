// Input files: one check, one wording, before any reader opens a path a user named.
#ifndef LOCKSTEP_SIM_CORE_FILES_H_
#define LOCKSTEP_SIM_CORE_FILES_H_

#include <cstdint>
#include <string>

#include "sim/core/status.h"

namespace lockstep {

// OK when `path` names a regular file this process can open for reading; otherwise an error
// naming the path and the problem: "PATH: no such file", "PATH: is a directory, not a file",
// "PATH: not a regular file", "PATH: cannot open: <reason>". `what` names the file's role in
// the message ("the history", "the scenario file"), e.g. "run.jsonl: the history: no such file".
// With `allow_pipe`, a named pipe is accepted too (a reader that streams: `lockstep check
// <(zstdcat h.zst)` names /dev/fd/63).
Status check_input_file(const std::string& path, const std::string& what, bool allow_pipe = false);

// The whole file, after check_input_file(path, "input"). Errors name the path: cannot open,
// larger than `max_bytes`, read failed. REQUIRES: max_bytes > 0.
Result<std::string> read_text_file(const std::string& path, uint64_t max_bytes);

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_FILES_H_
