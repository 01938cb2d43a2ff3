// RedisServer: one real redis-server process that lockstep starts, faults and removes (live mode,
// docs/live.md).
//
// The server runs from the Debian `redis-server` binary on a free loopback port, in a temporary
// directory of its own, with the persistence mode of the scenario's node: none (no RDB, no AOF),
// aof-always / aof-everysec (`appendonly yes` + `appendfsync always|everysec`), or rdb (`save`
// every rdb_interval_ms, rounded up to whole seconds), and with expiry events on
// (notify-keyspace-events Ex, for the history's `expire` events). A crash is SIGKILL; a restart starts the
// same binary on the same port and directory, so what survives is what Redis itself kept. A pause
// is SIGSTOP, its end SIGCONT.
//
// Nothing is left behind: the destructor kills the process and removes the directory, every
// server is also in the process table of sim/core/interrupt.h, whose SIGINT/SIGTERM handler
// kills it, and the child asks the kernel for SIGKILL when lockstep itself dies
// (PR_SET_PDEATHSIG), so even `kill -9 lockstep` leaves no server running.
#ifndef LOCKSTEP_HARNESS_LIVE_REDIS_SERVER_H_
#define LOCKSTEP_HARNESS_LIVE_REDIS_SERVER_H_

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/status.h"
#include "sim/kernel/node_process.h"
#include "sim/redis/reply.h"

namespace lockstep::live {

class RedisServer {
 public:
  // How long start() and restart() wait for the server to answer PING.
  static constexpr int64_t kStartTimeoutMs = 10'000;

  // Starts a server named `name` (for messages) under a new directory in `parent_dir`. With
  // `clock_shim` (the path of lockstep's clock shim, clock_shim.c), the server's wall clock is
  // lockstep's to set (set_clock).
  static Result<std::unique_ptr<RedisServer>> start(const std::string& name, const std::string& parent_dir,
                                                    const kernel::NodeOptions& options,
                                                    const std::string& clock_shim = "");
  ~RedisServer();
  RedisServer(const RedisServer&) = delete;
  RedisServer& operator=(const RedisServer&) = delete;

  const std::string& name() const { return name_; }
  uint16_t port() const { return port_; }
  bool running() const { return pid_ > 0; }
  bool paused() const { return paused_; }
  const std::string& dir() const { return dir_; }

  // SIGSTOP / SIGCONT. REQUIRES: running().
  void pause();
  void resume();
  // SIGKILL, and waits for the process to end. No-op when not running.
  void kill();
  // Starts the process again on the same port and directory. REQUIRES: !running().
  Status restart();

  // The server's wall clock from now on: real + offset_us + drift_ppm * (real - reference_us) / 1e6
  // (wall-clock µs). REQUIRES: started with a clock shim.
  void set_clock(int64_t offset_us, int64_t drift_ppm, int64_t reference_us);
  bool has_clock() const { return clock_ != nullptr; }

  // One command on a fresh connection, waiting at most timeout_ms (a control-plane call: live
  // tests, snapshots before a crash). An error status when the server does not answer.
  Result<redis::Reply> command(const std::vector<std::string>& argv, int64_t timeout_ms = 2000) const;
  // The server's version ("7.0.15"), from INFO server.
  Result<std::string> version() const;

 private:
  RedisServer(std::string name, std::string dir, uint16_t port, kernel::NodeOptions options);
  Status map_clock();
  Status spawn();
  Status wait_ready();

  std::string name_;
  std::string dir_;
  uint16_t port_;
  kernel::NodeOptions options_;
  std::string clock_shim_;
  volatile int64_t* clock_ = nullptr;  // the shim's control file, mapped: seq, offset, drift, reference
  pid_t pid_ = -1;
  bool paused_ = false;
};

// Where lockstep's clock shim is: $LOCKSTEP_CLOCK_SHIM, next to the running binary, in
// ../lib/lockstep/ from it (an installed lockstep), or where this build put it. Empty if nowhere.
std::string find_clock_shim();

// A free TCP port on 127.0.0.1 (bound and released; a server bound to it soon after gets it).
Result<uint16_t> free_loopback_port();

// Sends `argv` to 127.0.0.1:port and reads one reply, within timeout_ms.
Result<redis::Reply> redis_command(uint16_t port, const std::vector<std::string>& argv, int64_t timeout_ms);

}  // namespace lockstep::live

#endif  // LOCKSTEP_HARNESS_LIVE_REDIS_SERVER_H_
