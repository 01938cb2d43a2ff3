// A real redis-server started for a test or a benchmark, on a free loopback port.
//
// The differential tests and benchmark B1 compare the model with the real thing. This starts
// /usr/bin/redis-server (Debian's 7.0) as a child process with no persistence
// (`--save '' --appendonly no`), bound to 127.0.0.1 only, waits until it answers PING, and
// kills it when destroyed. Outside the simulator: it uses real time and real processes.
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_PROCESS_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_PROCESS_H_

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "sim/core/status.h"

namespace lockstep::differential {

inline constexpr char kRedisServerPath[] = "/usr/bin/redis-server";

class RedisProcess {
 public:
  // Starts a server and waits (up to 10 s) until it answers. The error says why it could not.
  static Result<std::unique_ptr<RedisProcess>> start(const std::string& path = kRedisServerPath);
  ~RedisProcess();
  RedisProcess(const RedisProcess&) = delete;
  RedisProcess& operator=(const RedisProcess&) = delete;

  uint16_t port() const { return port_; }
  // The server's log file (kept for failure messages).
  const std::string& log_path() const { return log_path_; }

 private:
  RedisProcess(pid_t pid, uint16_t port, std::string log_path)
      : pid_(pid), port_(port), log_path_(std::move(log_path)) {}
  pid_t pid_;
  uint16_t port_;
  std::string log_path_;
};

// A TCP port on 127.0.0.1 that was free a moment ago (bind to port 0, read it, close).
Result<uint16_t> pick_free_port();

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_REDIS_PROCESS_H_
