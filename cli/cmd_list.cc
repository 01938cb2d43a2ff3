// `lockstep list [algorithms|scenarios|mutants|faults|all] [--scenarios DIR] [--mutants] [--lua FILE]... [--json]`:
// what lockstep can run.
//
// The client options every algorithm runs with; every registered algorithm with its lock kind,
// what it is, and each option with its default — both profile defaults for the Redisson
// algorithms — and the scenario library: every *.json
// under DIR (default `scenarios`), in path order, with its name, algorithm and expected verdict,
// or the error that keeps it from loading. `mutants` (or --mutants) lists the deliberately broken
// scripts `lockstep run --mutant NAME` can swap in (algorithms/mutants); `faults` the fault table
// (harness/scenario/fault_table.h): each kind's target, parameters, simulated and live effect;
// `all` leaves both out.
// --lua FILE loads a Lua algorithm (docs/lua-algorithms.md) and lists it after the built-in ones.
// --json prints the same as one JSON object.
// Exit codes: 0, or 2 for bad usage (an unknown topic, a missing scenario directory when
// scenarios were asked for explicitly).
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "algorithms/algorithm.h"
#include "algorithms/lua_client/lua_algorithm.h"
#include "algorithms/mutants/mutants.h"
#include "cli/commands.h"
#include "cli/explore_common.h"
#include "cli/terminal.h"
#include "harness/live/live_run.h"
#include "harness/scenario/fault_table.h"
#include "harness/scenario/library.h"
#include "harness/scenario/parse.h"

namespace lockstep::cli {
namespace {

using nlohmann::json;

struct ListArgs {
  std::string topic = "all";
  std::string dir;  // empty: scenario::default_library_dir
  bool json = false;
  bool mutants = false;
  std::vector<std::string> lua;  // Lua algorithm files to load and list
};

json algorithm_json(const algorithms::AlgorithmInfo& a) {
  json options = json::array();
  for (auto it = a.option_defaults.begin(); it != a.option_defaults.end(); ++it) {
    json o = {{"name", it.key()}};
    if (it.value().is_object() && it.value().contains("doc")) {
      for (auto f = it.value().begin(); f != it.value().end(); ++f) o[f.key()] = f.value();
    } else {
      o["default"] = it.value();
    }
    // `profile` sets the others' defaults: it goes first.
    if (it.key() == "profile") {
      options.insert(options.begin(), std::move(o));
    } else {
      options.push_back(std::move(o));
    }
  }
  return {{"name", a.name},      {"lock_kind", a.lock_kind},       {"description", a.description},
          {"fair", a.fair},      {"modes", a.modes},                {"multi_master", a.multi_master},
          {"options", options}};
}

std::string value_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

// "classic 5000, current 300000" or the single default, and the allowed values.
std::string defaults_text(const json& o) {
  std::string out;
  if (o["name"] == "profile") {
    out = "classic (default)";
  } else if (o.contains("classic")) {
    const std::string c = value_text(o["classic"]), n = value_text(o["current"]);
    out = c == n ? c : "classic: " + c + ", current: " + n;
  } else {
    out = o.contains("default") ? value_text(o["default"]) : std::string("-");
  }
  if (o.contains("values")) {
    std::string values;
    for (const json& v : o["values"]) values += (values.empty() ? "" : " | ") + value_text(v);
    out += "   (" + values + ")";
  }
  return out;
}

// The client options every algorithm runs with (the scenario's clients[].options).
json client_options_json() {
  const runtime::ClientOptions d;
  return json::array({
      {{"name", "timeout_ms"}, {"default", d.timeout_ms}, {"doc", "a command with no reply by then fails or is re-sent (Redisson timeout)"}},
      {{"name", "retry_attempts"}, {"default", d.retry_attempts}, {"doc", "re-sends after a timeout (Redisson retryAttempts)"}},
      {{"name", "retry_interval_ms"}, {"default", d.retry_interval_ms}, {"doc", "pause before a re-send (Redisson retryInterval)"}},
      {{"name", "subscription_timeout_ms"}, {"default", d.subscription_timeout_ms}, {"doc", "SUBSCRIBE confirmation deadline"}},
      {{"name", "lock_watchdog_timeout_ms"}, {"default", d.lock_watchdog_timeout_ms}, {"doc", "the lease the watchdog keeps renewing (every third of it)"}}});
}

void print_client_options(const json& options) {
  std::printf("Client options (clients[].options in a scenario; every algorithm):\n");
  for (const json& o : options) {
    std::printf("  %-32s %s\n    %s\n", o["name"].get<std::string>().c_str(),
                value_text(o["default"]).c_str(), o["doc"].get<std::string>().c_str());
  }
  std::printf("\n");
}

void print_algorithms(const json& algos) {
  std::printf("Algorithms (%zu):\n", algos.size());
  for (const json& a : algos) {
    std::string tags = a["lock_kind"].get<std::string>();
    if (a["fair"].get<bool>()) tags += ", fair";
    if (a["modes"].get<bool>()) tags += ", read/write modes";
    if (a["multi_master"].get<bool>()) tags += ", independent masters";
    std::printf("\n  %s  [%s]\n    %s\n", a["name"].get<std::string>().c_str(), tags.c_str(),
                a["description"].get<std::string>().c_str());
    if (a.contains("file")) std::printf("    file: %s\n", printable(a["file"].get<std::string>()).c_str());
    if (a["options"].empty()) {
      std::printf("    options: none\n");
      continue;
    }
    std::printf("    options:\n");
    for (const json& o : a["options"]) {
      std::printf("      %-32s %s\n", o["name"].get<std::string>().c_str(), defaults_text(o).c_str());
      if (o.contains("doc")) std::printf("        %s\n", o["doc"].get<std::string>().c_str());
    }
  }
}

json scenarios_json(const std::string& dir) {
  json out = json::array();
  for (const std::string& f : scenario::scenario_files(dir)) {
    Result<scenario::Scenario> s = scenario::load_scenario(f);
    if (!s.ok()) {
      out.push_back({{"file", f}, {"error", s.status().message()}});
      continue;
    }
    const scenario::Scenario& sc = s.value();
    json expect = {{"verdict", sc.expect.verdict}};
    if (!sc.expect.property.empty()) expect["property"] = sc.expect.property;
    // Whether `lockstep run --live` can run it (docs/live.md): true, or why not.
    const Status live = live::LiveRun::supported(sc, sc.seed);
    out.push_back({{"file", f}, {"name", sc.name}, {"algorithm", sc.algorithm},
                   {"description", sc.description}, {"expect", expect},
                   {"live", live.ok() ? json(true) : json(live.message())}});
  }
  return out;
}

// File names come from the directory and may hold anything: printed through printable().
void print_scenarios(const json& list, const std::string& dir) {
  std::printf("Scenarios in %s (%zu; [live]: lockstep run --live can run it, --json says why not):\n",
              printable(dir).c_str(), list.size());
  int width = 0;  // the longest file name, so the columns line up
  for (const json& s : list) width = std::max(width, static_cast<int>(printable(s["file"].get<std::string>()).size()));
  for (const json& s : list) {
    const std::string file = printable(s["file"].get<std::string>());
    if (s.contains("error")) {
      std::printf("  %s\n    cannot load: %s\n", file.c_str(), printable(s["error"].get<std::string>()).c_str());
      continue;
    }
    std::string expect = s["expect"]["verdict"].get<std::string>();
    if (s["expect"].contains("property")) expect += " (" + s["expect"]["property"].get<std::string>() + ")";
    std::printf("  %-*s %-22s expect %-32s%s\n", width, file.c_str(), printable(s["algorithm"].get<std::string>()).c_str(),
                expect.c_str(), s["live"] == true ? " [live]" : "");
  }
}

json mutants_json() {
  json out = json::array();
  for (const algorithms::mutants::Mutant& m : algorithms::mutants::mutants()) {
    out.push_back({{"name", m.name}, {"replaces", m.replaces}, {"algorithms", m.algorithms},
                   {"caught_by", m.property}, {"broken", m.broken}});
  }
  return out;
}

int list_mutants(bool as_json) {
  const json list = mutants_json();
  if (as_json) {
    std::printf("%s\n", json{{"mutants", list}}.dump(2).c_str());
    return kExitOk;
  }
  std::printf("Mutants (%zu; lockstep run SCENARIO --mutant NAME):\n", list.size());
  for (const json& m : list) {
    std::string algos;
    for (const json& a : m["algorithms"]) algos += (algos.empty() ? "" : ", ") + a.get<std::string>();
    std::printf("\n  %s  [replaces %s; caught by %s]\n    %s\n    algorithms: %s\n",
                m["name"].get<std::string>().c_str(), m["replaces"].get<std::string>().c_str(),
                m["caught_by"].get<std::string>().c_str(), m["broken"].get<std::string>().c_str(),
                algos.c_str());
  }
  return kExitOk;
}

const char* targets_name(scenario::FaultTargets t) {
  using T = scenario::FaultTargets;
  switch (t) {
    case T::kLink: return "links (\"all\", a process, {from, to} or {between})";
    case T::kGroups: return "groups of processes";
    case T::kProcess: return "a client or a node";
    case T::kNode: return "a node";
    case T::kClient: return "a client";
    case T::kThread: return "a client's thread (\"c1/t0\")";
    case T::kReplicatedNode: return "a node of a replicated topology";
  }
  return "";
}

const char* shape_name(scenario::FaultShape s) {
  using S = scenario::FaultShape;
  switch (s) {
    case S::kInstant: return "instant";
    case S::kWindow: return "a window: start, end after duration_ms (none: the end of the run)";
    case S::kStepOrWindow: return "instant without duration_ms, else a window undone at its end";
    case S::kUntilSpent: return "a window: start, end when its replies are lost or after duration_ms";
    case S::kCrash: return "a node: down until restart_after_ms (none: for good); a client: instant, for good";
  }
  return "";
}

json faults_json() {
  json out = json::array();
  for (const scenario::FaultKindInfo& k : scenario::fault_table()) {
    json params = json::array();
    for (const scenario::FaultParam& p : k.params) {
      params.push_back({{"name", p.name}, {"unit", p.unit}, {"min", p.lo}, {"max", p.hi}, {"required", p.required},
                        {"nodes_only", p.node_only}, {"random_default", p.drawn ? json::array({p.draw.lo, p.draw.hi}) : json()}});
    }
    out.push_back({{"kind", fault_kind_name(k.kind)}, {"target", targets_name(k.targets)}, {"time", shape_name(k.shape)},
                   {"random", k.random}, {"params", params}, {"simulated", k.simulated}, {"live", k.live}});
  }
  return out;
}

int list_faults(bool as_json) {
  const json list = faults_json();
  if (as_json) {
    std::printf("%s\n", json{{"faults", list}}.dump(2).c_str());
    return kExitOk;
  }
  std::printf("Fault kinds (%zu; docs/scenarios.md#faults):\n", list.size());
  for (const json& k : list) {
    std::printf("\n  %s%s\n    target: %s\n    time: %s\n", k["kind"].get<std::string>().c_str(),
                k["random"] == true ? "" : "  [not in random profiles]", k["target"].get<std::string>().c_str(),
                k["time"].get<std::string>().c_str());
    for (const json& p : k["params"]) {
      std::string line = p["name"].get<std::string>() + ": " + p["unit"].get<std::string>() + ", " +
                         std::to_string(p["min"].get<int64_t>()) + " .. " + std::to_string(p["max"].get<int64_t>());
      if (p["required"] == true) line += ", required";
      if (p["nodes_only"] == true) line += ", nodes only";
      if (p["random_default"].is_array()) {
        line += "; random profiles draw from [" + std::to_string(p["random_default"][0].get<int64_t>()) + ", " +
                std::to_string(p["random_default"][1].get<int64_t>()) + "] unless given";
      }
      std::printf("    %s\n", line.c_str());
    }
    std::printf("    simulated: %s\n    live: %s\n", k["simulated"].get<std::string>().c_str(),
                k["live"].get<std::string>().c_str());
  }
  return kExitOk;
}

int list_command(ListArgs args) {
  if (args.mutants || args.topic == "mutants") return list_mutants(args.json);
  if (args.topic == "faults") return list_faults(args.json);
  if (args.topic != "all" && args.topic != "algorithms" && args.topic != "scenarios") {
    std::fprintf(stderr, "lockstep list: unknown topic \"%s\" (expected algorithms, scenarios, mutants, faults or all)\n",
                 printable(args.topic).c_str());
    return kExitBadInput;
  }
  if (args.dir.empty()) args.dir = scenario::default_library_dir(scenario::program_path());
  const bool algos = args.topic != "scenarios";
  const bool scens = args.topic != "algorithms";
  const bool have_dir = std::filesystem::is_directory(args.dir);
  if (args.topic == "scenarios" && !have_dir) {
    std::fprintf(stderr, "lockstep list: %s: %s (give the library with --scenarios DIR)\n", printable(args.dir).c_str(),
                 std::filesystem::exists(args.dir) ? "is a file, not a directory" : "no such directory");
    return kExitBadInput;
  }
  json out = json::object();
  if (algos) {
    out["algorithms"] = json::array();
    for (const algorithms::AlgorithmInfo& a : algorithms::algorithms()) out["algorithms"].push_back(algorithm_json(a));
    for (const std::string& f : args.lua) {
      Result<const algorithms::AlgorithmInfo*> a = algorithms::lua_client::load_lua_algorithm(f);
      if (!a.ok()) {
        std::fprintf(stderr, "lockstep list: %s\n", printable(a.status().message()).c_str());
        return kExitBadInput;
      }
      json j = algorithm_json(*a.value());
      j["file"] = algorithms::lua_client::algorithm_file(a.value()->name);
      out["algorithms"].push_back(std::move(j));
    }
    out["client_options"] = client_options_json();
  }
  if (scens) out["scenarios"] = have_dir ? scenarios_json(args.dir) : json::array();
  if (args.json) {
    // JSON escapes control characters; a file name that is not UTF-8 gets U+FFFD (dump would throw).
    std::printf("%s\n", out.dump(2, ' ', false, json::error_handler_t::replace).c_str());
    return kExitOk;
  }
  if (algos) {
    print_client_options(out["client_options"]);
    print_algorithms(out["algorithms"]);
  }
  if (algos && scens) std::printf("\n");
  if (scens && have_dir) print_scenarios(out["scenarios"], args.dir);
  if (scens && !have_dir) std::printf("Scenarios: no library at %s (use --scenarios DIR)\n", printable(args.dir).c_str());
  return kExitOk;
}

}  // namespace

void register_list(CLI::App& app, Action& action) {
  auto args = std::make_shared<ListArgs>();
  CLI::App* sub = app.add_subcommand("list", "List the algorithms (with options and defaults), the scenario library, the mutants or the fault kinds");
  sub->add_option("topic", args->topic, "algorithms, scenarios, mutants, faults or all")->capture_default_str();
  sub->add_option("--scenarios", args->dir,
                  "The scenario library's directory (default: ./scenarios, else the one installed with lockstep)")->check(non_empty_path("a directory name"));
  sub->add_flag("--json", args->json, "Print one JSON object");
  sub->add_flag("--mutants", args->mutants, "List the mutants (broken scripts for run --mutant)");
  sub->add_option("--lua", args->lua, "Also load and list the algorithm in this Lua file (repeatable)")->check(non_empty_path("a file name"));
  sub->callback([&action, args] { action = [args] { return list_command(*args); }; });
}

}  // namespace lockstep::cli
