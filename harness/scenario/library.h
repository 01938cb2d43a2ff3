// The scenario library on disk: the one definition of "every scenario under a directory", shared
// by `lockstep list`, the library test, the determinism test and the mutants test.
#ifndef LOCKSTEP_HARNESS_SCENARIO_LIBRARY_H_
#define LOCKSTEP_HARNESS_SCENARIO_LIBRARY_H_

#include <string>
#include <vector>

namespace lockstep::scenario {

// Every regular `*.json` file under `dir`, recursively, as a path that starts with `dir`,
// sorted (a directory's own order is not deterministic). Empty if `dir` cannot be read.
std::vector<std::string> scenario_files(const std::string& dir);

// The scenario library's directory when the command line names none: `scenarios` in the working
// directory when there is one (a checkout of lockstep), else the copy installed with the program
// (`cmake --install`, the .deb): <prefix>/share/lockstep/scenarios for `program` in <prefix>/bin.
// `scenarios` when neither exists, so that the error names what was looked for first. `sub` is a
// part of the library ("edge").
std::string default_library_dir(const std::string& program, const std::string& sub = "");

// The running program's path (/proc/self/exe), or "" when it cannot be read.
std::string program_path();

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_LIBRARY_H_
