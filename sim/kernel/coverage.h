// Coverage: what one run (or an exploration, summed) exercised of the algorithm under test —
// the lines of each lock script the nodes executed and the client-side states the lock clients
// reported (Runtime::cover). Observing only: counting never changes what a run does, so the
// history of a run is the same bytes with or without it (docs/coverage.md).
#ifndef LOCKSTEP_SIM_KERNEL_COVERAGE_H_
#define LOCKSTEP_SIM_KERNEL_COVERAGE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace lockstep::kernel {

class Coverage {
 public:
  Coverage() = default;
  // A copy has the counts, not the cache of the original (whose pointers are the original's).
  Coverage(const Coverage& other) : scripts_(other.scripts_), points_(other.points_) {}
  Coverage& operator=(const Coverage& other) {
    scripts_ = other.scripts_;
    points_ = other.points_;
    by_address_.clear();
    return *this;
  }
  Coverage(Coverage&&) = default;  // map nodes move with the maps: the cache stays valid
  Coverage& operator=(Coverage&&) = default;

  // Executions of each line of a script, by the script's name: hits[line] (index 0 unused).
  using LineHits = std::vector<uint64_t>;

  // The counts of the script `name` (static storage, as CallOptions::script), for the node to
  // count the lines of one execution into. The pointer stays valid while this object lives.
  LineHits* lines_for(const char* name);
  // A client-side state was reached once more.
  void hit(std::string_view point);

  // Adds another run's counts (an exploration sums its seeds).
  void add(const Coverage& other);
  bool empty() const { return scripts_.empty() && points_.empty(); }

  const std::map<std::string, LineHits, std::less<>>& scripts() const { return scripts_; }
  const std::map<std::string, uint64_t, std::less<>>& points() const { return points_; }
  // For reading a stored coverage back.
  void set_line(std::string_view script, size_t line, uint64_t hits);
  void set_point(std::string_view point, uint64_t hits);

 private:
  std::map<std::string, LineHits, std::less<>> scripts_;
  std::map<std::string, uint64_t, std::less<>> points_;
  // lines_for's cache by the name's address (scripts' names are static strings): a handful of
  // scripts per run, so a linear scan beats hashing. Never iterated into output.
  std::vector<std::pair<const char*, LineHits*>> by_address_;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_COVERAGE_H_
