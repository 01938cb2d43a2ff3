#include "sim/core/interrupt.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace lockstep::interrupt {
namespace {

constexpr size_t kSlots = 64;
constexpr size_t kPathMax = 4096;

// A slot is free when its first byte is 0. `used` tells the handler which slots to look at.
struct Slot {
  std::atomic<bool> used{false};
  char path[kPathMax] = {};
};

std::array<Slot, kSlots> g_slots;
std::array<std::atomic<pid_t>, kSlots> g_pids{};  // 0: free
const char* g_what = "lockstep";
const char* g_stopping = "finishing the summary of the seeds that ran";

volatile sig_atomic_t g_stop = 0;
// When the first stop signal came (CLOCK_MONOTONIC, ms). Interruption only; never reaches a
// result. A signal within kSameInterruptionMs of it is the same interruption delivered twice:
// `timeout -s INT` signals its child and then the child's process group, and a terminal's Ctrl-C
// reaches the whole group; neither is a second Ctrl-C.
std::atomic<int64_t> g_stop_at_ms{0};
static_assert(std::atomic<int64_t>::is_always_lock_free, "read and written in a signal handler");
constexpr int64_t kSameInterruptionMs = 1000;

// Async-signal-safe (clock_gettime is, by POSIX).
int64_t monotonic_ms() {
  struct timespec ts {};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}
// stderr is a terminal (read when a handler is installed, not in it): a progress line may be
// drawn there, and a handler's message first erases it.
volatile sig_atomic_t g_tty = 0;

void erase_progress_line() {
  static const char kErase[] = "\r\033[K";
  if (g_tty != 0) (void)!write(STDERR_FILENO, kErase, sizeof(kErase) - 1);
}

void on_signal(int sig);

void on_stop_signal(int sig) {
  const int64_t now_ms = monotonic_ms();
  if (g_stop != 0) {
    if (now_ms - g_stop_at_ms.load() < kSameInterruptionMs) return;  // the same interruption, twice
    on_signal(sig);  // a second one: at once
  }
  g_stop_at_ms.store(now_ms);
  g_stop = sig;
  erase_progress_line();
  (void)!write(STDERR_FILENO, g_what, std::strlen(g_what));
  static const char kMsg[] = ": interrupted; ";
  (void)!write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
  (void)!write(STDERR_FILENO, g_stopping, std::strlen(g_stopping));
  static const char kAgain[] = " (Ctrl-C again to quit at once)\n";
  (void)!write(STDERR_FILENO, kAgain, sizeof(kAgain) - 1);
}

void on_signal(int sig) {
  for (std::atomic<pid_t>& p : g_pids) {
    const pid_t pid = p.load();
    if (pid > 0) kill(pid, SIGKILL);
  }
  for (Slot& s : g_slots) {
    if (s.used.load()) unlink(s.path);
  }
  erase_progress_line();
  (void)!write(STDERR_FILENO, g_what, std::strlen(g_what));
  static const char kMsg[] = ": interrupted; temporary files removed\n";
  (void)!write(STDERR_FILENO, kMsg, sizeof(kMsg) - 1);
  _exit(128 + sig);
}

}  // namespace

void remember(const std::string& path) {
  if (path.size() >= kPathMax) return;
  for (Slot& s : g_slots) {
    if (s.used.load()) continue;
    std::memcpy(s.path, path.c_str(), path.size() + 1);
    s.used.store(true);
    return;
  }
}

void forget(const std::string& path) {
  for (Slot& s : g_slots) {
    if (s.used.load() && path == s.path) {
      s.used.store(false);
      return;
    }
  }
}

void remember_process(pid_t pid) {
  for (std::atomic<pid_t>& p : g_pids) {
    pid_t free = 0;
    if (p.compare_exchange_strong(free, pid)) return;
  }
}

void forget_process(pid_t pid) {
  for (std::atomic<pid_t>& p : g_pids) {
    pid_t mine = pid;
    if (p.compare_exchange_strong(mine, 0)) return;
  }
}

void exit_on_signal(const char* what) {
  g_what = what;
  g_tty = isatty(STDERR_FILENO) == 1 ? 1 : 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // the terminal closed (an ssh session dropped)
}

void remove_remembered() {
  for (Slot& s : g_slots) {
    if (s.used.load()) unlink(s.path);
    s.used.store(false);
  }
}

void stop_on_signal(const char* what, const char* stopping) {
  g_what = what;
  g_stopping = stopping;
  g_tty = isatty(STDERR_FILENO) == 1 ? 1 : 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);  // no SA_RESTART: a blocking poll() returns EINTR and sees the stop
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGHUP, &sa, nullptr);  // the terminal closed (an ssh session dropped)
}

int stop_requested() { return g_stop; }

PartialOutputs::~PartialOutputs() {
  for (const std::string& p : paths_) {
    std::remove(p.c_str());
    forget(p);
  }
}

void PartialOutputs::add(const std::string& path) {
  paths_.push_back(path);
  remember(path);
}

void PartialOutputs::keep() {
  for (const std::string& p : paths_) forget(p);
  paths_.clear();
}

}  // namespace lockstep::interrupt
