#include "harness/live/redis_server.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "sim/core/assert.h"
#include "sim/core/interrupt.h"
#include "sim/resp/reply_parser.h"
#include "sim/resp/writer.h"

namespace lockstep::live {
namespace {

// Live mode is about real time: the control plane's waits read the monotonic clock (never in
// simulated code, docs/live.md).
int64_t monotonic_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string errno_text() { return std::strerror(errno); }

class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// The redis-server arguments for a node with `options` on `port` in `dir`.
std::vector<std::string> server_args(uint16_t port, const std::string& dir, const kernel::NodeOptions& o) {
  std::vector<std::string> a = {"redis-server", "--port", std::to_string(port), "--bind", "127.0.0.1",
                                "--dir", dir, "--daemonize", "no", "--protected-mode", "no",
                                "--logfile", dir + "/redis.log", "--notify-keyspace-events", "Ex", "--save", "", "--appendonly", "no"};
  switch (o.persistence) {
    case kernel::Persistence::kNone:
      break;
    case kernel::Persistence::kAofAlways:
    case kernel::Persistence::kAofEverysec:
      a.back() = "yes";
      a.insert(a.end(), {"--appendfsync", o.persistence == kernel::Persistence::kAofAlways ? "always" : "everysec"});
      break;
    case kernel::Persistence::kRdb:
      // `save <seconds> <changes>`: a snapshot once a change is that old.
      a[a.size() - 3] = std::to_string(std::max<int64_t>(1, (o.rdb_interval_ms + 999) / 1000)) + " 1";
      break;
  }
  return a;
}

}  // namespace

Result<uint16_t> free_loopback_port() {
  Fd fd(socket(AF_INET, SOCK_STREAM, 0));
  if (fd.get() < 0) return Status::error("live: socket(): " + errno_text());
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (bind(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    return Status::error("live: cannot bind a loopback port: " + errno_text());
  }
  socklen_t len = sizeof(addr);
  if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    return Status::error("live: getsockname(): " + errno_text());
  }
  return static_cast<uint16_t>(ntohs(addr.sin_port));
}

Result<redis::Reply> redis_command(uint16_t port, const std::vector<std::string>& argv, int64_t timeout_ms) {
  const int64_t deadline = monotonic_ms() + timeout_ms;
  Fd fd(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0));
  if (fd.get() < 0) return Status::error("socket(): " + errno_text());
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(port);
  if (connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 && errno != EINPROGRESS) {
    return Status::error("connect to 127.0.0.1:" + std::to_string(port) + ": " + errno_text());
  }
  std::vector<std::string_view> views(argv.begin(), argv.end());
  std::string out = resp::encode_request(views);
  size_t sent = 0;
  resp::ReplyParser parser;
  char buf[16384];
  while (true) {
    const int64_t left = deadline - monotonic_ms();
    if (left <= 0) return Status::error("no reply from 127.0.0.1:" + std::to_string(port) + " within " + std::to_string(timeout_ms) + " ms");
    pollfd p{fd.get(), static_cast<short>(sent < out.size() ? POLLOUT : POLLIN), 0};
    const int r = poll(&p, 1, static_cast<int>(left));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) continue;
    if (sent < out.size()) {
      const ssize_t n = send(fd.get(), out.data() + sent, out.size() - sent, MSG_NOSIGNAL);
      if (n < 0) return Status::error("send to 127.0.0.1:" + std::to_string(port) + ": " + errno_text());
      sent += static_cast<size_t>(n);
      continue;
    }
    const ssize_t n = recv(fd.get(), buf, sizeof(buf), 0);
    if (n == 0) return Status::error("127.0.0.1:" + std::to_string(port) + " closed the connection");
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return Status::error("recv from 127.0.0.1:" + std::to_string(port) + ": " + errno_text());
    }
    parser.feed(std::string_view(buf, static_cast<size_t>(n)));
    redis::Reply reply;
    const resp::ReplyStatus st = parser.next(&reply);
    if (st == resp::ReplyStatus::kReply) return reply;
    if (st == resp::ReplyStatus::kError) return Status::error("bad reply: " + parser.error());
  }
}

RedisServer::RedisServer(std::string name, std::string dir, uint16_t port, kernel::NodeOptions options)
    : name_(std::move(name)), dir_(std::move(dir)), port_(port), options_(options) {}

std::string find_clock_shim() {
  const char* env = getenv("LOCKSTEP_CLOCK_SHIM");
  if (env != nullptr && *env != '\0') return env;
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  std::vector<std::filesystem::path> candidates;
  if (!ec) {
    candidates.push_back(exe.parent_path() / "liblockstep_clock_shim.so");
    candidates.push_back(exe.parent_path().parent_path() / "lib/lockstep/liblockstep_clock_shim.so");
  }
#ifdef LOCKSTEP_CLOCK_SHIM_BUILT
  candidates.push_back(LOCKSTEP_CLOCK_SHIM_BUILT);
#endif
  for (const auto& c : candidates) {
    if (std::filesystem::exists(c, ec)) return c.string();
  }
  return "";
}

Result<std::unique_ptr<RedisServer>> RedisServer::start(const std::string& name, const std::string& parent_dir,
                                                        const kernel::NodeOptions& options,
                                                        const std::string& clock_shim) {
  Result<uint16_t> port = free_loopback_port();
  if (!port.ok()) return port.status();
  const std::string dir = parent_dir + "/" + name;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::error("live: " + dir + ": cannot create the node's directory: " + ec.message());
  std::unique_ptr<RedisServer> s(new RedisServer(name, dir, port.value(), options));
  s->clock_shim_ = clock_shim;
  if (!clock_shim.empty()) {
    if (Status st = s->map_clock(); !st.ok()) return st;
  }
  Status st = s->spawn();
  if (!st.ok()) return st;
  return s;
}

Status RedisServer::map_clock() {
  const std::string path = dir_ + "/clock";
  const int fd = open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC, 0600);
  if (fd < 0) return Status::error("live: " + path + ": " + errno_text());
  constexpr size_t kBytes = 4 * sizeof(int64_t);
  if (ftruncate(fd, kBytes) != 0) {
    close(fd);
    return Status::error("live: " + path + ": " + errno_text());
  }
  void* m = mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  close(fd);
  if (m == MAP_FAILED) return Status::error("live: " + path + ": mmap: " + errno_text());
  clock_ = static_cast<volatile int64_t*>(m);
  return Status::ok_status();
}

void RedisServer::set_clock(int64_t offset_us, int64_t drift_ppm, int64_t reference_us) {
  LS_ASSERT(clock_ != nullptr);
  // A sequence lock: odd while the fields change (the shim retries).
  const int64_t seq = clock_[0];
  __atomic_store_n(&clock_[0], seq + 1, __ATOMIC_RELEASE);
  __atomic_thread_fence(__ATOMIC_RELEASE);
  clock_[1] = offset_us;
  clock_[2] = drift_ppm;
  clock_[3] = reference_us;
  __atomic_store_n(&clock_[0], seq + 2, __ATOMIC_RELEASE);
}

RedisServer::~RedisServer() {
  kill();
  if (clock_ != nullptr) munmap(const_cast<int64_t*>(clock_), 4 * sizeof(int64_t));
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

Status RedisServer::spawn() {
  LS_ASSERT(pid_ <= 0);
  const std::vector<std::string> args = server_args(port_, dir_, options_);
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const pid_t parent = getpid();
  const std::string shim = clock_shim_;
  const std::string clock_file = dir_ + "/clock";
  const pid_t pid = fork();
  if (pid < 0) return Status::error("live: fork(): " + errno_text());
  if (pid == 0) {
    // The child: dies with lockstep, ignores the terminal's Ctrl-C (lockstep stops it), and
    // keeps the terminal clean.
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);
    setpgid(0, 0);
    if (!shim.empty()) {
      setenv("LD_PRELOAD", shim.c_str(), 1);
      setenv("LOCKSTEP_CLOCK_FILE", clock_file.c_str(), 1);
    }
    const int devnull = open("/dev/null", O_RDWR);
    if (devnull >= 0) {
      dup2(devnull, STDIN_FILENO);
      dup2(devnull, STDOUT_FILENO);
      dup2(devnull, STDERR_FILENO);
    }
    execvp(argv[0], argv.data());
    _exit(127);
  }
  pid_ = pid;
  paused_ = false;
  interrupt::remember_process(pid);
  return wait_ready();
}

Status RedisServer::wait_ready() {
  const int64_t deadline = monotonic_ms() + kStartTimeoutMs;
  std::string last;
  while (monotonic_ms() < deadline) {
    int status = 0;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      interrupt::forget_process(pid_);
      pid_ = -1;
      return Status::error("live: " + name_ + ": redis-server exited at start (is the Debian package redis-server installed? see " +
                           dir_ + "/redis.log)");
    }
    Result<redis::Reply> r = redis_command(port_, {"PING"}, 200);
    if (r.ok() && r.value().type == redis::Reply::Type::kStatus) return Status::ok_status();
    last = r.ok() ? r.value().str : r.status().message();
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill();
  return Status::error("live: " + name_ + ": redis-server on port " + std::to_string(port_) + " did not answer PING within " +
                       std::to_string(kStartTimeoutMs) + " ms (" + last + ")");
}

void RedisServer::pause() {
  LS_ASSERT(running());
  ::kill(pid_, SIGSTOP);
  paused_ = true;
}

void RedisServer::resume() {
  LS_ASSERT(running());
  ::kill(pid_, SIGCONT);
  paused_ = false;
}

void RedisServer::kill() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  interrupt::forget_process(pid_);
  pid_ = -1;
  paused_ = false;
}

Status RedisServer::restart() {
  LS_ASSERT(!running());
  return spawn();
}

Result<redis::Reply> RedisServer::command(const std::vector<std::string>& argv, int64_t timeout_ms) const {
  Result<redis::Reply> r = redis_command(port_, argv, timeout_ms);
  if (!r.ok()) return Status::error("live: " + name_ + ": " + r.status().message());
  return r;
}

Result<std::string> RedisServer::version() const {
  Result<redis::Reply> r = command({"INFO", "server"});
  if (!r.ok()) return r.status();
  const std::string& text = r.value().str;
  const size_t at = text.find("redis_version:");
  if (at == std::string::npos) return Status::error("live: " + name_ + ": INFO server has no redis_version");
  const size_t from = at + std::strlen("redis_version:");
  return text.substr(from, text.find_first_of("\r\n", from) - from);
}

}  // namespace lockstep::live
