// WorkerPool: runs numbered tasks in forked worker processes and hands their outputs back, in
// the parent, as they complete.
//
// Why processes and not threads: a seed that trips an assertion (LS_ASSERT aborts) or crashes
// the simulator must not take the whole exploration down with it. A task whose worker dies is
// reported as crashed, with the signal or exit status, and a fresh worker takes over the rest.
// Each task runs the same function on its own index, so the outputs do not depend on how many
// workers there are or which one ran what: determinism regardless of --jobs.
//
// The task function runs in the child; it must not need anything from the parent after the fork
// except what it captured. The completion callback runs in the parent, one task at a time.
// Workers die with the thread that forked them, the one in run_tasks (PR_SET_PDEATHSIG): a parent
// killed without warning leaves none running.
#ifndef LOCKSTEP_HARNESS_EXPLORE_WORKER_POOL_H_
#define LOCKSTEP_HARNESS_EXPLORE_WORKER_POOL_H_

#include <cstdint>
#include <functional>
#include <string>

#include "sim/core/status.h"

namespace lockstep::explore {

// What one task produced.
struct TaskOutput {
  bool crashed = false;        // the worker died while running it
  bool out_of_memory = false;  // crashed, because it ran out of memory (kOutOfMemoryStatus)
  std::string text;            // the task function's return value; if crashed, how the worker died
};

// The exit status of a worker that ran out of memory (a limit such as `ulimit -v`, not a bug):
// `lockstep`'s out-of-memory path exits with it, silently, when in_worker().
inline constexpr int kOutOfMemoryStatus = 86;
// True in a forked worker process.
bool in_worker();

// Runs in a worker: the output of task `index`.
using TaskFn = std::function<std::string(uint64_t index)>;
// Runs in the parent when task `index` has finished.
using DoneFn = std::function<void(uint64_t index, const TaskOutput& output)>;
// Polled in the parent between completions (and when a signal interrupts the wait): true stops
// the pool (e.g. Ctrl-C asked for it).
using StopFn = std::function<bool()>;

// The most workers a pool runs, and the largest output one task may return.
inline constexpr int kMaxJobs = 256;
inline constexpr uint64_t kMaxTaskOutputBytes = uint64_t{64} << 20;

// Runs tasks 0..count-1 on `jobs` forked workers (at most count), handing them out in index
// order, and calls `done` once per task. Returns an error only when the pool itself fails
// (fork or pipe errors); task crashes are outputs, not errors.
// When `stop` says so, the workers are killed and reaped and run_tasks returns ok at once: the
// tasks still running are lost (`done` is not called for them), and no worker's death after
// the stop is reported as a crash. Workers ignore SIGINT and SIGHUP, so a Ctrl-C or a closed
// terminal's hangup sent to the whole process group reaches only the parent, which decides.
// REQUIRES: 1 <= jobs <= kMaxJobs. Call from a single-threaded process (fork).
Status run_tasks(uint64_t count, int jobs, const TaskFn& task, const DoneFn& done, const StopFn& stop = nullptr);

// The number of CPUs this process may use (at least 1), the default for --jobs.
int available_cpus();

}  // namespace lockstep::explore

#endif  // LOCKSTEP_HARNESS_EXPLORE_WORKER_POOL_H_
