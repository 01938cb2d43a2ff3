#include "bench/bench_util.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>
#include <thread>

#include "sim/core/assert.h"

namespace lockstep::bench {

double median(std::vector<double> v) {
  LS_ASSERT(!v.empty());
  std::sort(v.begin(), v.end());
  const size_t mid = v.size() / 2;
  return v.size() % 2 ? v[mid] : (v[mid - 1] + v[mid]) / 2;
}

nlohmann::json machine() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  std::string line, model = "unknown";
  while (std::getline(cpuinfo, line)) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  }
  double load = -1;
  std::ifstream loadavg("/proc/loadavg");
  if (!(loadavg >> load)) load = -1;
  return {{"cores", std::thread::hardware_concurrency()}, {"cpu", model}, {"load_average_1min", load}};
}

int64_t proc_status_bytes(const std::string& field) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field + ":", 0) == 0) return std::stoll(line.substr(field.size() + 1)) * 1024;
  }
  return 0;
}

nlohmann::json run_in_child(const std::function<nlohmann::json()>& measure) {
  int fds[2];
  if (::pipe(fds) != 0) return {{"status", "error"}, {"error", "pipe failed"}};
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    const std::string text = measure().dump();
    size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::write(fds[1], text.data() + done, text.size() - done);
      if (n <= 0) ::_exit(1);
      done += static_cast<size_t>(n);
    }
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string text;
  char buf[4096];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) text.append(buf, static_cast<size_t>(n));
  ::close(fds[0]);
  int status = 0;
  if (pid > 0) ::waitpid(pid, &status, 0);
  nlohmann::json out = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (pid < 0 || out.is_discarded() || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    return {{"status", "error"}, {"error", "the measuring child process failed"}};
  }
  return out;
}

}  // namespace lockstep::bench
