// What the false-alarm budget (false_alarm_test.cc) and the ground truth (tests/ground_truth)
// share: where the generic profiles live and which (algorithm, property) pairs may fail without
// any fault (docs/checker.md, "Failures without faults").
#ifndef LOCKSTEP_TESTS_FALSE_ALARMS_WITHOUT_FAULTS_H_
#define LOCKSTEP_TESTS_FALSE_ALARMS_WITHOUT_FAULTS_H_

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

namespace lockstep::testing {

// tests/false_alarms/profiles: the generic random fault profile of each algorithm.
inline std::filesystem::path profiles_dir() {
  return std::filesystem::path(LOCKSTEP_SOURCE_DIR) / "tests" / "false_alarms" / "profiles";
}

// (algorithm, property) pairs that may fail without any fault, and why (docs/checker.md). The
// read-write lock's renewal cutting a longer reader's lease needs a lease above the watchdog
// timeout, which neither the generic profiles nor the ground truth's scripts use.
inline const std::set<std::pair<std::string, std::string>>& allowed_without_faults() {
  static const std::set<std::pair<std::string, std::string>> pairs = {
      // SETNX then EXPIRE as two commands, unlock by plain DEL: unsafe by design.
      {"setnx-naive", "mutual_exclusion"},
      {"setnx-naive", "linearizability"},
      {"setnx-naive", "liveness"},
      // A head waiter whose tryLock gives up leaves without waking the next one, which sleeps for
      // the wait estimate it was told (up to a queue's worth of threadWaitTime): Redisson's own
      // behaviour, in every version the reference describes.
      {"redisson-fair-lock", "liveness"},
  };
  return pairs;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace lockstep::testing

#endif  // LOCKSTEP_TESTS_FALSE_ALARMS_WITHOUT_FAULTS_H_
