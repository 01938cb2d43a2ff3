// Mutants: deliberately broken variants of the Redisson lock scripts, each a copy of one real
// script (algorithms/redisson/lua) with exactly one change, used to show that the checker catches
// the bug on the scenario library (issue 5). A run selects at most one mutant
// (scenario::RunOptions::mutant, `lockstep run --mutant NAME`). The run hands it to each client
// process as a script override (runtime::Runtime::script): the Redisson clients then send the
// mutant's text wherever they would have sent the script it replaces, and every output of
// the run (history header, result.json, the verdict line) names the mutant, so a mutant run is
// never mistaken for the real algorithm. The list is fixed at build time, in name order.
#ifndef LOCKSTEP_ALGORITHMS_MUTANTS_MUTANTS_H_
#define LOCKSTEP_ALGORITHMS_MUTANTS_MUTANTS_H_

#include <string>
#include <string_view>
#include <vector>

#include "runtime/runtime.h"
#include "sim/core/status.h"

namespace lockstep::algorithms::mutants {

struct Mutant {
  std::string name;                     // the .lua file's base name
  std::string replaces;                 // the Script::name it stands in for ("rlock_unlock")
  std::vector<std::string> algorithms;  // the registered algorithms that send that script
  std::string property;                 // the property expected to catch it
  std::string broken;                   // one line: what was changed and why it is wrong
  runtime::Script script;               // the mutant's text, named `name`
};

// Every mutant, in name order.
const std::vector<Mutant>& mutants();
// nullptr when no mutant has that name.
const Mutant* find_mutant(std::string_view name);
// The mutant `name` if it exists and applies to `algorithm`; otherwise an error naming the
// problem and listing the mutants that do apply.
Result<const Mutant*> mutant_for(std::string_view name, std::string_view algorithm);
// Whether `m` applies to `algorithm`.
bool applies_to(const Mutant& m, std::string_view algorithm);

}  // namespace lockstep::algorithms::mutants

#endif  // LOCKSTEP_ALGORITHMS_MUTANTS_MUTANTS_H_
