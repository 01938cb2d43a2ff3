#include "tests/differential/redis_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <thread>

#include "sim/core/assert.h"

namespace lockstep::differential {
namespace {

constexpr int kStartAttempts = 5;          // a port picked free may be taken before bind
constexpr int kReadyPollMs = 10;
constexpr int kReadyTimeoutMs = 10'000;

// True once something accepts connections on the port and answers an inline PING.
bool answers_ping(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return false;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = false;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::send(fd, "PING\r\n", 6, MSG_NOSIGNAL) == 6) {
    timeval tv{1, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[16] = {};
    ok = ::recv(fd, buf, sizeof(buf), 0) >= 5 && std::memcmp(buf, "+PONG", 5) == 0;
  }
  ::close(fd);
  return ok;
}

pid_t spawn(const std::string& path, uint16_t port, const std::string& log_path) {
  const std::string port_s = std::to_string(port);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // Child: the server must not outlive the test (a killed or timed-out test would leave it
  // running), so it gets SIGTERM when its parent dies.
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() == 1) ::_exit(127);  // the parent died before prctl took effect
  // Exec the server in the foreground with no persistence, loopback only.
  const char* argv[] = {path.c_str(), "--port", port_s.c_str(), "--bind", "127.0.0.1",
                        "--save", "", "--appendonly", "no", "--daemonize", "no",
                        "--logfile", log_path.c_str(), "--protected-mode", "yes",
                        // DEBUG SET-ACTIVE-EXPIRE, from loopback only (see DiffRunner::create).
                        "--enable-debug-command", "local", nullptr};
  ::execv(path.c_str(), const_cast<char* const*>(argv));
  ::_exit(127);
}

}  // namespace

Result<uint16_t> pick_free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return Status::error(std::string("socket(): ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return Status::error(std::string("cannot find a free port: ") + std::strerror(errno));
  }
  ::close(fd);
  return static_cast<uint16_t>(ntohs(addr.sin_port));
}

Result<std::unique_ptr<RedisProcess>> RedisProcess::start(const std::string& path) {
  if (::access(path.c_str(), X_OK) != 0) {
    return Status::error(path + " is not installed (apt-get install redis-server)");
  }
  for (int attempt = 0; attempt < kStartAttempts; attempt++) {
    Result<uint16_t> port = pick_free_port();
    if (!port.ok()) return port.status();
    const std::string log_path = "/tmp/lockstep-redis-" + std::to_string(port.value()) + ".log";
    const pid_t pid = spawn(path, port.value(), log_path);
    if (pid < 0) return Status::error(std::string("fork(): ") + std::strerror(errno));
    std::unique_ptr<RedisProcess> p(new RedisProcess(pid, port.value(), log_path));
    for (int waited = 0; waited < kReadyTimeoutMs; waited += kReadyPollMs) {
      if (answers_ping(port.value())) return p;
      int status = 0;
      if (::waitpid(pid, &status, WNOHANG) == pid) {
        p->pid_ = -1;  // exited (port taken?): try another port
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(kReadyPollMs));
    }
  }
  return Status::error(path + " did not start (see /tmp/lockstep-redis-*.log)");
}

RedisProcess::~RedisProcess() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  int status = 0;
  // Bounded wait: SIGTERM makes redis-server exit promptly; SIGKILL after 5 s.
  for (int i = 0; i < 500; i++) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      ::unlink(log_path_.c_str());
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  LS_ASSERT(pid_ > 0);
}

}  // namespace lockstep::differential
