#include "harness/explore/worker_pool.h"

#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <vector>

#include "sim/core/assert.h"

namespace lockstep::explore {
namespace {

struct Worker {
  pid_t pid = -1;
  int to_fd = -1;    // the parent writes task indices here
  int from_fd = -1;  // and reads outputs here
  bool busy = false;
  uint64_t task = 0;
};

bool write_all(int fd, const void* data, size_t n) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Reads exactly n bytes. False at end of file or on an error (a worker that died).
bool read_all(int fd, void* data, size_t n) {
  char* p = static_cast<char*>(data);
  while (n > 0) {
    const ssize_t r = ::read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return false;
    p += r;
    n -= static_cast<size_t>(r);
  }
  return true;
}

// The worker's loop: a task index in, its output out, until the parent closes the pipe.
bool g_in_worker = false;

[[noreturn]] void worker_main(int in_fd, int out_fd, const TaskFn& task) {
  g_in_worker = true;
  // Every task builds and frees a whole world. Keep freed memory in the heap instead of giving
  // it back to the kernel and faulting it in again for the next task (a tenth of the time).
  ::mallopt(M_MMAP_THRESHOLD, 64 << 20);
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
  ::mallopt(M_TOP_PAD, 16 << 20);
  for (;;) {
    uint64_t index = 0;
    if (!read_all(in_fd, &index, sizeof index)) ::_exit(0);
    std::string out;
    try {
      out = task(index);
    } catch (const std::bad_alloc&) {
      ::_exit(kOutOfMemoryStatus);  // the parent reports it as such
    }
    if (out.size() > kMaxTaskOutputBytes) out.resize(kMaxTaskOutputBytes);
    const uint64_t header[2] = {index, out.size()};
    if (!write_all(out_fd, header, sizeof header) || !write_all(out_fd, out.data(), out.size())) {
      ::_exit(3);
    }
  }
}

std::string describe_exit(int status) {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    // SIGKILL from outside the exploration is most often the kernel's out-of-memory killer.
    return "the worker was killed by signal " + std::to_string(sig) + " (" + ::strsignal(sig) +
           (sig == SIGKILL ? "; the kernel's out-of-memory killer sends it" : "") + ")";
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemoryStatus) return "the worker ran out of memory";
  if (WIFEXITED(status)) return "the worker exited with status " + std::to_string(WEXITSTATUS(status));
  return "the worker ended (wait status " + std::to_string(status) + ")";
}

// Closes the parent's ends and reaps the process; returns how it ended (and its wait status).
std::string reap(Worker& w, int* wait_status = nullptr) {
  if (w.to_fd >= 0) ::close(w.to_fd);
  if (w.from_fd >= 0) ::close(w.from_fd);
  w.to_fd = w.from_fd = -1;
  int status = 0;
  pid_t r;
  do {
    r = ::waitpid(w.pid, &status, 0);
  } while (r < 0 && errno == EINTR);
  w.pid = -1;
  if (wait_status != nullptr) *wait_status = r < 0 ? 0 : status;
  return r < 0 ? std::string("the worker vanished") : describe_exit(status);
}

Result<Worker> spawn(const TaskFn& task, const std::vector<Worker>& others) {
  int to[2];
  int from[2];
  if (::pipe2(to, O_CLOEXEC) != 0) return Status::error(std::string("explore: pipe: ") + std::strerror(errno));
  if (::pipe2(from, O_CLOEXEC) != 0) {
    ::close(to[0]);
    ::close(to[1]);
    return Status::error(std::string("explore: pipe: ") + std::strerror(errno));
  }
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {to[0], to[1], from[0], from[1]}) ::close(fd);
    return Status::error(std::string("explore: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(to[1]);
    ::close(from[0]);
    // A sibling's pipe ends held here would keep it from seeing end of file.
    for (const Worker& o : others) {
      if (o.to_fd >= 0) ::close(o.to_fd);
      if (o.from_fd >= 0) ::close(o.from_fd);
    }
    // Ctrl-C, and the hangup of a closed terminal, go to the whole foreground process group:
    // the parent decides what to do (it stops the pool and kills the workers); a worker must
    // not die of it first and be counted as a crashed seed. SIGTERM keeps its default.
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGINT, &ign, nullptr);
    ::sigaction(SIGHUP, &ign, nullptr);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    ::sigaction(SIGTERM, &dfl, nullptr);
    // A parent killed without warning (SIGKILL, the OOM killer) takes its workers with it, rather
    // than leaving them to finish a seed nobody will read. If it died before this line, stop now.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(1);
    worker_main(to[0], from[1], task);
  }
  ::close(to[0]);
  ::close(from[1]);
  Worker w;
  w.pid = pid;
  w.to_fd = to[1];
  w.from_fd = from[0];
  return w;
}

// Ignores SIGPIPE while the pool runs (a write to a dead worker fails with EPIPE instead).
class IgnoreSigpipe {
 public:
  IgnoreSigpipe() {
    struct sigaction ign {};
    ign.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ign, &old_);
  }
  ~IgnoreSigpipe() { ::sigaction(SIGPIPE, &old_, nullptr); }

 private:
  struct sigaction old_ {};
};

class Pool {
 public:
  Pool(uint64_t count, int jobs, const TaskFn& task, const DoneFn& done, const StopFn& stop)
      : count_(count), jobs_(jobs), task_(task), done_(done), stop_(stop) {
    // A bound on respawns: every crash costs one, plus slack for workers that die idle.
    spawn_budget_ = static_cast<uint64_t>(jobs) + count + 16;
  }

  Status run() {
    while (finished_ < count_) {
      if (stopping()) return kill_all();
      Status s = fill();
      if (!s.ok()) return s;
      s = wait_one();
      if (!s.ok()) return s;
    }
    for (Worker& w : workers_) {
      if (w.pid >= 0) reap(w);
    }
    LS_ASSERT(finished_ == count_);
    return Status::ok_status();
  }

 private:
  bool has_work() const { return !requeued_.empty() || next_ < count_; }
  bool stopping() const { return stop_ && stop_(); }

  // The stop: every worker is killed and reaped; their tasks are dropped.
  Status kill_all() {
    for (Worker& w : workers_) {
      if (w.pid < 0) continue;
      ::kill(w.pid, SIGKILL);
      reap(w);
    }
    return Status::ok_status();
  }

  uint64_t take_task() {
    if (!requeued_.empty()) {
      const uint64_t t = requeued_.back();
      requeued_.pop_back();
      return t;
    }
    return next_++;
  }

  // Gives every idle worker a task, spawning workers up to `jobs` while there is work.
  Status fill() {
    for (size_t i = 0; i < workers_.size() && has_work(); ++i) {
      if (workers_[i].pid < 0 || workers_[i].busy) continue;
      assign(workers_[i]);
    }
    while (has_work() && static_cast<int>(live()) < jobs_) {
      if (spawn_budget_ == 0) return Status::error("explore: the worker processes keep dying; giving up");
      --spawn_budget_;
      Result<Worker> w = spawn(task_, workers_);
      if (!w.ok()) return w.status();
      workers_.push_back(w.value());
      assign(workers_.back());
    }
    return Status::ok_status();
  }

  size_t live() const {
    size_t n = 0;
    for (const Worker& w : workers_) n += w.pid >= 0 ? 1 : 0;
    return n;
  }

  void assign(Worker& w) {
    LS_ASSERT(w.pid >= 0 && !w.busy);
    const uint64_t t = take_task();
    if (!write_all(w.to_fd, &t, sizeof t)) {
      requeued_.push_back(t);  // the worker died idle; the task never ran
      reap(w);
      return;
    }
    w.busy = true;
    w.task = t;
  }

  // Waits for one busy worker to answer (or die) and hands the result to `done`.
  Status wait_one() {
    std::vector<pollfd> fds;
    std::vector<size_t> owner;
    for (size_t i = 0; i < workers_.size(); ++i) {
      if (workers_[i].pid < 0 || !workers_[i].busy) continue;
      fds.push_back(pollfd{workers_[i].from_fd, POLLIN, 0});
      owner.push_back(i);
    }
    if (fds.empty()) return Status::ok_status();  // every worker died idle; fill() respawns
    int n;
    do {
      n = ::poll(fds.data(), fds.size(), -1);
    } while (n < 0 && errno == EINTR && !stopping());
    if (n < 0 && errno == EINTR) return Status::ok_status();  // run() sees the stop
    if (n < 0) return Status::error(std::string("explore: poll: ") + std::strerror(errno));
    for (size_t k = 0; k < fds.size(); ++k) {
      if (fds[k].revents != 0) receive(workers_[owner[k]]);
    }
    return Status::ok_status();
  }

  void receive(Worker& w) {
    LS_ASSERT(w.busy);
    uint64_t header[2] = {0, 0};
    TaskOutput out;
    bool ok = read_all(w.from_fd, header, sizeof header) && header[0] == w.task &&
              header[1] <= kMaxTaskOutputBytes;
    if (ok) {
      out.text.resize(header[1]);
      ok = read_all(w.from_fd, out.text.data(), out.text.size());
    }
    const uint64_t task = w.task;
    w.busy = false;
    if (!ok) {
      out.crashed = true;
      int status = 0;
      out.text = reap(w, &status);
      out.out_of_memory = WIFEXITED(status) && WEXITSTATUS(status) == kOutOfMemoryStatus;
      if (stopping()) return;  // killed by the same signal that stops us: not a crash
    }
    ++finished_;
    done_(task, out);
  }

  const uint64_t count_;
  const int jobs_;
  const TaskFn& task_;
  const DoneFn& done_;
  const StopFn& stop_;
  std::vector<Worker> workers_;
  std::vector<uint64_t> requeued_;
  uint64_t next_ = 0;
  uint64_t finished_ = 0;
  uint64_t spawn_budget_ = 0;
};

}  // namespace

Status run_tasks(uint64_t count, int jobs, const TaskFn& task, const DoneFn& done, const StopFn& stop) {
  LS_ASSERT(jobs >= 1 && jobs <= kMaxJobs);
  LS_ASSERT(task != nullptr && done != nullptr);
  if (count == 0) return Status::ok_status();
  IgnoreSigpipe guard;
  Pool pool(count, jobs, task, done, stop);
  return pool.run();
}

bool in_worker() { return g_in_worker; }

int available_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (::sched_getaffinity(0, sizeof set, &set) == 0) {
    const int n = CPU_COUNT(&set);
    if (n >= 1) return n > kMaxJobs ? kMaxJobs : n;
  }
  const long n = ::sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 ? static_cast<int>(n > kMaxJobs ? kMaxJobs : n) : 1;
}

}  // namespace lockstep::explore
