#include "cli/explore_common.h"

#include <unistd.h>

#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include "checker/report/files.h"
#include "harness/scenario/parse.h"
#include "sim/core/files.h"
#include "sim/core/printable.h"

namespace lockstep::cli {

Result<LoadedScenario> load_scenario_file(const std::string& path, const AlgorithmOverride& replace) {
  if (Status s = check_input_file(path, "the scenario file"); !s.ok()) return Status::error(printable(s.message()));
  Result<std::string> text = report::read_text_file(path, uint64_t{64} << 20);
  if (!text.ok()) return Status::error(printable(text.status().message() + " (the scenario file)"));
  std::string source = std::move(text.value());
  if (!replace.lua.empty() || !replace.name.empty()) {
    nlohmann::json doc = nlohmann::json::parse(source, nullptr, /*allow_exceptions=*/false);
    if (doc.is_object()) {
      std::error_code ec;
      doc["algorithm"] = replace.lua.empty() ? nlohmann::json{{"name", replace.name}}
                                             : nlohmann::json{{"file", std::filesystem::absolute(replace.lua, ec).string()}};
      source = doc.dump(2);
    }  // else the parser below names the problem
  }
  Result<scenario::Scenario> s = scenario::parse_scenario_text(source, path);
  if (!s.ok()) return s.status();
  LoadedScenario l;
  l.doc = nlohmann::json::parse(source);  // it parsed above, so this cannot fail
  // Variants (shrunk files, sweeps) are parsed under other names: keep a Lua file findable.
  if (!s.value().algorithm_file.empty()) l.doc["algorithm"]["file"] = s.value().algorithm_file;
  l.parsed = std::move(s.value());
  return l;
}

Progress::Progress(std::string what)
    : what_(std::move(what)), tty_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()), last_(start_) {}

double Progress::elapsed_s() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

namespace {

// "40 s", "3 min", "2 h 5 min": a rough time left, rounded up.
std::string rough_duration(double seconds) {
  const int64_t s = static_cast<int64_t>(seconds) + 1;
  if (s < 100) return std::to_string(s) + " s";
  const int64_t min = (s + 59) / 60;
  if (min < 100) return std::to_string(min) + " min";
  return std::to_string(min / 60) + " h " + std::to_string(min % 60) + " min";
}

// How often a progress line goes to a stderr that is not a terminal (a CI log): every 30 s, or
// every LOCKSTEP_PROGRESS_EVERY_S seconds (1 to 86400) when that is set.
std::chrono::seconds log_every() {
  static const std::chrono::seconds every = [] {
    const char* env = std::getenv("LOCKSTEP_PROGRESS_EVERY_S");
    const std::string_view text = env == nullptr ? "" : env;
    int64_t s = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), s);
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || s < 1 || s > 86400) {
      return std::chrono::seconds(30);
    }
    return std::chrono::seconds(s);
  }();
  return every;
}

}  // namespace

void Progress::update(uint64_t done, uint64_t total, const std::string& extra) {
  const auto now = std::chrono::steady_clock::now();
  if (tty_ ? (done != total && now - last_ < std::chrono::milliseconds(100)) : (now - last_ < log_every() || done == total)) {
    return;
  }
  last_ = now;
  const double s = elapsed_s();
  const double rate = s > 0 ? static_cast<double>(done) / s : 0.0;
  std::string line = what_ + " " + std::to_string(done) + "/" + std::to_string(total) + ", " + extra;
  char buf[64];
  std::snprintf(buf, sizeof buf, ", %.0f/s", rate);
  line += buf;
  // Time left, once a second of work gives a rate to go by.
  if (done > 0 && done < total && s >= 1.0) line += ", about " + rough_duration(static_cast<double>(total - done) / rate) + " left";
  if (tty_) {
    std::fprintf(stderr, "\r\033[K%s", line.c_str());
    drawn_ = true;
  } else {
    std::fprintf(stderr, "%s\n", line.c_str());
  }
  std::fflush(stderr);
}

void Progress::finish() {
  if (tty_ && drawn_) std::fprintf(stderr, "\r\033[K");
  drawn_ = false;
}

Status make_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::error(dir + ": cannot create the output directory: " + ec.message());
  return Status::ok_status();
}

Status check_output_dir(const std::string& dir, const char* option, std::string_view command) {
  if (dir.empty()) return Status::error(std::string(option) + ": expected a directory name, found an empty string");
  std::error_code ec;
  if (std::filesystem::exists(dir, ec) && !std::filesystem::is_directory(dir, ec)) {
    return Status::error(std::string(option) + ": " + dir + " is a file, not a directory");
  }
  // What each command leaves at the top of its directory. Each replaces its own outputs there; a
  // directory holding another command's would end up with two runs' files side by side.
  struct Marker {
    std::string_view command, file, what;
  };
  static constexpr Marker kMarkers[] = {{"run", "result.json", "a run's"},
                                        {"run", "history.jsonl", "a run's"},
                                        {"run", "history.jsonl.zst", "a run's"},
                                        {"explore", "explore.json", "an exploration's"},
                                        {"sweep", "sweep.json", "a sweep's"},
                                        {"scorecard", "scorecard.json", "a scorecard's"}};
  for (const Marker& m : kMarkers) {
    if (m.command == command || !std::filesystem::exists(std::filesystem::path(dir) / m.file, ec)) continue;
    return Status::error(std::string(option) + ": " + dir + " holds " + std::string(m.what) + " output (" + std::string(m.file) +
                         "): a directory never mixes two runs; give another directory or remove it");
  }
  return Status::ok_status();
}

Status refuse_replacing_input(const std::string& dir, std::string_view command, const std::string& input) {
  namespace fs = std::filesystem;
  struct Output {
    std::string_view command, file;
  };
  static constexpr Output kOutputs[] = {{"run", "result.json"},      {"run", "history.jsonl"}, {"run", "history.jsonl.zst"},
                                        {"run", "report.html"},      {"explore", "explore.json"}, {"explore", "shrunk.json"},
                                        {"sweep", "sweep.csv"},      {"sweep", "sweep.json"},   {"sweep", "sweep.svg"}};
  std::error_code ec;
  if (!fs::exists(input, ec)) return Status::ok_status();
  for (const Output& o : kOutputs) {
    const fs::path out = fs::path(dir) / o.file;
    if (o.command != command || !fs::exists(out, ec) || !fs::equivalent(out, input, ec) || ec) continue;
    return Status::error("--out " + dir + ": " + std::string(command) + " writes " + out.string() + ", which is " + input +
                         ", the file it reads; give another directory");
  }
  // A run of an explored seed writes DIR/shrunk/, a sweep its values' scenarios in DIR/scenarios/.
  for (const auto& [cmd, sub] : {std::pair<std::string_view, const char*>{"explore", "shrunk"}, {"sweep", "scenarios"}}) {
    const fs::path folder = fs::path(dir) / sub;
    if (cmd != command || !fs::is_directory(folder, ec)) continue;
    if (fs::equivalent(fs::path(input).parent_path().empty() ? fs::path(".") : fs::path(input).parent_path(), folder, ec) && !ec) {
      return Status::error("--out " + dir + ": " + std::string(command) + " replaces what is in " + folder.string() + ", where " + input +
                           " is, the file it reads; give another directory");
    }
  }
  return Status::ok_status();
}

Status check_output_file(const std::string& path, const char* option) {
  if (path.empty()) return Status::error(std::string(option) + ": expected a file name, found an empty string");
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return Status::error(std::string(option) + ": " + path + " is a directory, not a file");
  }
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty() && !std::filesystem::is_directory(parent, ec)) {
    return Status::error(std::string(option) + ": " + path + ": the directory " + parent.string() + " does not exist");
  }
  return Status::ok_status();
}

CLI::Validator non_empty_path(const char* what) {
  const std::string message = std::string("expected ") + what + ", found an empty string";
  return CLI::Validator([message](std::string& value) { return value.empty() ? message : std::string(); }, "", "NON_EMPTY");
}

}  // namespace lockstep::cli
