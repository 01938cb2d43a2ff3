// SimContext: the shared pieces of one simulated world, handed to every process in it.
#ifndef LOCKSTEP_SIM_KERNEL_SIM_CONTEXT_H_
#define LOCKSTEP_SIM_KERNEL_SIM_CONTEXT_H_

#include "sim/core/rng.h"
#include "sim/history/recorder.h"
#include "sim/kernel/event_loop.h"
#include "sim/kernel/network.h"

namespace lockstep::kernel {

class Cluster;

struct SimContext {
  EventLoop* loop = nullptr;
  Network* net = nullptr;
  history::Recorder* rec = nullptr;
  Cluster* cluster = nullptr;
  const Rng* rng = nullptr;  // the run's root generator (processes derive named streams)
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_SIM_CONTEXT_H_
