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

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_LIBRARY_H_
