// Reading and writing the report's files: whole-file reads with a size limit, and writes that
// go through a temporary name and a rename, so a reader never sees half a file.
#ifndef LOCKSTEP_CHECKER_REPORT_FILES_H_
#define LOCKSTEP_CHECKER_REPORT_FILES_H_

#include <cstdint>
#include <string>

#include "sim/core/files.h"
#include "sim/core/status.h"

namespace lockstep::report {

// The whole file (sim/core/files.h).
using ::lockstep::read_text_file;

// Writes `text` to `path`.tmp, then renames it to `path`. On failure nothing is left behind. An
// existing `path` that is not a regular file (/dev/null, /dev/stdout, a FIFO) is written in place.
Status write_file_atomically(const std::string& path, const std::string& text);

// Refuses to write `out_path` (given with `flag`: "-o", "--json") over an input of `command`
// ("report", "check"): `input`, described as `what` ("the result", "the history"). The same file
// by std::filesystem::equivalent, so another spelling or a hard link counts too, or the temporary
// file write_file_atomically first writes being that input. `written` names what would have been
// written ("the report", "the JSON result").
Status refuse_overwriting_input(const std::string& command, const std::string& flag, const std::string& out_path,
                                const std::string& input, const std::string& what, const std::string& written);

}  // namespace lockstep::report

#endif  // LOCKSTEP_CHECKER_REPORT_FILES_H_
