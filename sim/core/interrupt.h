// Interruption: what a SIGINT, SIGTERM or SIGHUP (the terminal closed) leaves behind.
//
// Outputs are written under temporary names and renamed when complete, so an interrupted run
// must not leave those temporary files (a half-written 581 MB history.jsonl.tmp was seen). Code
// that creates one remembers it here and forgets it once renamed or removed; a command that
// wants it calls exit_on_signal(), whose handler removes every remembered file and ends the
// process with 128 + the signal (130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP). The table is fixed-size and the handler uses
// only async-signal-safe calls (unlink, write, _exit).
#ifndef LOCKSTEP_SIM_CORE_INTERRUPT_H_
#define LOCKSTEP_SIM_CORE_INTERRUPT_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace lockstep::interrupt {

// Remembers `path` for removal on interruption. Paths past the table's size (64) or longer than
// 4095 bytes are not remembered (the caller's own clean-up still runs on errors).
void remember(const std::string& path);
// Forgets `path` (renamed or removed by its owner).
void forget(const std::string& path);
// Remembers a child process (a live run's redis-server) for SIGKILL by the handler below, before
// it removes the files; forget_process() once it is gone. The table holds 64.
void remember_process(pid_t pid);
void forget_process(pid_t pid);

// Installs the SIGINT/SIGTERM/SIGHUP handler described above; `what` names the command in the message
// it prints ("lockstep run: interrupted").
void exit_on_signal(const char* what);

// Removes every remembered file now (what the signal handler does), for other abnormal ends:
// running out of memory (cli/main.cc).
void remove_remembered();

// For commands that can stop gracefully (explore, a live run): the first SIGINT/SIGTERM/SIGHUP only
// records the signal and prints "<what>: interrupted; <stopping> (Ctrl-C again to quit at
// once)"; the command polls stop_requested() and winds down. A second signal exits at once as
// exit_on_signal() does, unless it came within a second of the first: that is the same
// interruption delivered twice (`timeout -s INT` signals the command and then its process group).
void stop_on_signal(const char* what,
                    const char* stopping = "finishing the summary of the seeds that ran");
// The signal that asked to stop (SIGINT, SIGTERM, SIGHUP), or 0.
int stop_requested();

// Files that are not complete yet (a run's outputs before its last one is written, a benchmark's
// scratch history): removed when the owner goes out of scope early (an error return) and, through
// the table above, on Ctrl-C or running out of memory; kept by keep().
class PartialOutputs {
 public:
  PartialOutputs() = default;
  PartialOutputs(const PartialOutputs&) = delete;
  PartialOutputs& operator=(const PartialOutputs&) = delete;
  ~PartialOutputs();
  void add(const std::string& path);
  void keep();

 private:
  std::vector<std::string> paths_;
};

}  // namespace lockstep::interrupt

#endif  // LOCKSTEP_SIM_CORE_INTERRUPT_H_
