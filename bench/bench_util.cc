#include "bench/bench_util.h"

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

}  // namespace lockstep::bench
