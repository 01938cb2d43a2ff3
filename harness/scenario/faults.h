// Faults at run time: drawing a schedule from a random profile, and injecting faults.
//
// draw_random_faults turns the profile into concrete faults. Swarm testing: each kind listed is
// switched on or off by the seed (stream "faults/swarm"; at least one stays on), so different
// seeds exercise different mixes. Each kind then draws its count, times, targets and parameters
// from its own stream ("faults/random/<kind>"), so adding a kind never shifts another's draws.
//
// FaultInjector schedules every fault's start (and end, for faults with a duration) on the
// event loop, applies it to the world and records it in the history (`fault` events, with
// start/end or instant phases).
#ifndef LOCKSTEP_HARNESS_SCENARIO_FAULTS_H_
#define LOCKSTEP_HARNESS_SCENARIO_FAULTS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "harness/scenario/scenario.h"
#include "sim/history/recorder.h"
#include "sim/kernel/event_loop.h"
#include "sim/kernel/network.h"
#include "sim/kernel/sim_context.h"

namespace lockstep::scenario {

class World;

// The faults the profile draws for `seed`, numbered from first_id, sorted by time (stable).
std::vector<FaultSpec> draw_random_faults(const Scenario& s, uint64_t seed, int64_t first_id);

// Every fault of a run: the schedule, then the drawn ones, in time order (ties by number).
std::vector<FaultSpec> run_faults(const Scenario& s, uint64_t seed);

// The clients whose threads some fault interrupts or cancels: they must allow interrupts before
// the run starts (in simulation and live alike).
std::set<std::string> interrupted_clients(const std::vector<FaultSpec>& faults);

// Adds the parameters of `f` that its kind has (duration_ms, extra_ms, rate_ppm,
// restart_after_ms, offset_ms, drift_ppm, delta_ms, promote, replies, match), named as in a
// scenario file, to the object `j`. Shared by the history's fault params and the materialised
// scenario (harness/explore), so both spell a fault the same way.
void add_fault_params(const FaultSpec& f, nlohmann::json& j);

// The fault's parameters as a JSON object text (for the history and the result).
std::string fault_params_json(const FaultSpec& f);
// How the history names the fault's target ("c1", "all", "c1->node0", "c1 | node0,c2").
std::string fault_target(const FaultSpec& f);

// An interrupt's or cancel's target "<client>/t<k>": the client's name and the thread index.
// REQUIRES: a target the parser accepted.
std::pair<std::string, uint32_t> split_thread(const std::string& target);

// Event-triggered faults (FaultSpec::on), in the simulator and in live mode alike: a fault past
// its at_ms is armed, and the first event that matches its trigger lands it (one fault per
// event; the next waits for the next). It follows the recorder's operations (which thread an
// operation is of; an acquisition's grant) and is told when a node ran a script of one.
class FaultTriggers : public history::OpListener {
 public:
  // `land(i, event)`: fault i's event happened ("granted", "acquire_executed", ...).
  using Land = std::function<void(size_t i, std::string_view event)>;
  FaultTriggers(const std::vector<FaultSpec>& faults, Land land);
  // Whether any fault waits for an event (else nothing needs to listen).
  bool needed() const;
  // Fault i reached its at_ms: it waits for its event from now on.
  void arm(size_t i) { armed_.push_back(i); }
  // A script of operation `op` ran on node `node`: "<acquire|unlock|renew>_executed".
  void script_executed(std::string_view node, int64_t op);
  void op_invoked(int64_t id, const history::Invoke& e) override;
  void op_completed(int64_t id, const history::Completion& c) override;

 private:
  struct OpSubject {
    std::string thread;
    const char* kind;  // "acquire", "unlock", "renew"
  };
  bool matches(const FaultTrigger& t, std::string_view event, const std::string& thread, std::string_view node) const;
  // Lands the first armed fault waiting for this event (of `thread`, on `node` if a node saw it).
  void fire(std::string_view event, const std::string& thread, std::string_view node);

  const std::vector<FaultSpec>& faults_;
  Land land_;
  std::vector<size_t> armed_;  // `on` faults waiting for their event, in arming order
  std::map<int64_t, OpSubject> ops_;  // the operations triggers can name, by id
};

class FaultInjector : public kernel::EventHandler, public kernel::ExecObserver {
 public:
  FaultInjector(World& world, const std::vector<FaultSpec>& faults);
  // Puts every fault's start on the event loop.
  void schedule();
  void on_event(uint64_t arg) override;
  // Event-triggered faults: World installs the triggers as the recorder's listener, and the
  // injector as exec observer, only when some fault waits for an event.
  FaultTriggers& triggers() { return triggers_; }
  void script_executed(kernel::ProcessId node, kernel::ProcessId client, int64_t op) override;

 private:
  struct Active {
    std::vector<kernel::WindowId> windows;
    int64_t undo = 0;      // clock_offset: the delta to step back; clock_drift: the old drift
    bool ended = false;
    bool fired = false;    // its event happened: the next start() applies it
  };
  const char* phase_of(const FaultSpec& f) const;
  void start(size_t i);
  void apply_start(size_t i);
  void end(size_t i);
  void record(size_t i, const char* phase, const std::string& params);
  std::vector<kernel::LinkFilter> filters(const LinkTarget& t);
  kernel::ProcessId pid(const std::string& name);

  World& world_;
  const std::vector<FaultSpec>& faults_;
  std::vector<Active> active_;
  FaultTriggers triggers_;
};

}  // namespace lockstep::scenario

#endif  // LOCKSTEP_HARNESS_SCENARIO_FAULTS_H_
