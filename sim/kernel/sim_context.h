// SimContext: the shared pieces of one simulated world, handed to every process in it.
#ifndef LOCKSTEP_SIM_KERNEL_SIM_CONTEXT_H_
#define LOCKSTEP_SIM_KERNEL_SIM_CONTEXT_H_

#include <string>
#include <vector>

#include "sim/core/rng.h"
#include "sim/core/time.h"
#include "sim/history/recorder.h"
#include "sim/kernel/coverage.h"
#include "sim/kernel/event_loop.h"
#include "sim/kernel/network.h"

namespace lockstep::kernel {

class Cluster;

// Told of every script a node ran for a lock operation (event-triggered faults).
class ExecObserver {
 public:
  virtual ~ExecObserver() = default;
  // `node` ran the script `client` sent for operation `op`; its reply is about to leave.
  virtual void script_executed(ProcessId node, ProcessId client, int64_t op) = 0;
};

struct SimContext {
  EventLoop* loop = nullptr;
  Network* net = nullptr;
  history::Recorder* rec = nullptr;
  Cluster* cluster = nullptr;
  const Rng* rng = nullptr;  // the run's root generator (processes derive named streams)
  ExecObserver* exec_observer = nullptr;   // when set, told of every script run for an op
  Coverage* coverage = nullptr;            // when set, script lines and client states are counted
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_SIM_CONTEXT_H_
