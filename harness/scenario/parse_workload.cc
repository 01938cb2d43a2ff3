// Parsing the workload: per-thread scripts of timed steps, or a generator.
#include <algorithm>

#include "algorithms/algorithm.h"
#include "harness/scenario/parse_internal.h"

namespace lockstep::scenario::internal {
namespace {

struct StepContext {
  Errors& errors;
  const Scenario& s;
  bool modes;     // the algorithm has read/write modes
  bool objects;   // its lock objects carry state (steps may name them)
  int64_t count;  // steps read so far in this entry
  // What the entry's threads' local clocks read at true 0 and at the run's end (the clock's
  // offset and drift; jumps are faults and not counted): a step's at_ms must fall in between
  // for every thread, or it would run at once or never (issue 9).
  int64_t local_start_ms = 0;         // the latest start over the entry's threads
  int64_t local_end_ms = 0;           // the earliest end over the entry's threads
  std::string start_thread, end_thread;  // the threads that set them
};

// Sets ctx's local clock window from the clients of `threads`.
void set_clock_window(const std::vector<std::string>& threads, StepContext& ctx) {
  ctx.local_start_ms = 0;
  ctx.local_end_ms = ctx.s.duration_ms;
  ctx.start_thread.clear();
  ctx.end_thread.clear();
  bool first = true;
  for (const std::string& t : threads) {
    for (const ClientSpec& c : ctx.s.clients) {
      if (t.compare(0, c.name.size() + 1, c.name + "/") != 0) continue;
      const int64_t start_ms = c.clock.offset_ms;
      const int64_t end_ms = c.clock.offset_ms + ctx.s.duration_ms + ctx.s.duration_ms * c.clock.drift_ppm / 1'000'000;
      if (first || start_ms > ctx.local_start_ms) ctx.local_start_ms = start_ms, ctx.start_thread = t;
      if (first || end_ms < ctx.local_end_ms) ctx.local_end_ms = end_ms, ctx.end_thread = t;
      first = false;
    }
  }
}

// Checks a step's at_ms against the local clock window of the threads that run it.
void check_at_ms(int64_t at_ms, const std::string& path, StepContext& ctx) {
  if (at_ms < 0 || !ctx.errors.ok()) return;
  if (at_ms < ctx.local_start_ms) {
    ctx.errors.message(path, "is " + std::to_string(at_ms) + " ms, but " + ctx.start_thread +
                                 "'s clock already reads " + std::to_string(ctx.local_start_ms) +
                                 " ms when the run starts (its offset_ms): the step would run at once; "
                                 "give at_ms >= " + std::to_string(ctx.local_start_ms) + " or none");
  } else if (at_ms > ctx.local_end_ms) {
    ctx.errors.message(path, "is " + std::to_string(at_ms) + " ms, but " + ctx.end_thread +
                                 "'s clock reads only " + std::to_string(ctx.local_end_ms) +
                                 " ms when the run ends (duration_ms, with its clock's offset and drift): "
                                 "the step would never run");
  }
}

// A step's "object": the lock object it calls through, for algorithms whose objects carry state.
std::string read_object(ObjectReader& r, StepContext& ctx) {
  const nlohmann::json* o = r.get("object");
  if (o == nullptr) return "";
  if (!ctx.objects) {
    if (ctx.errors.ok()) {
      ctx.errors.message(r.path("object"), "this algorithm's lock objects carry no state; only the Redisson locks "
                                           "(not redisson-redlock) take \"object\"");
    }
    return "";
  }
  const std::string name = r.required_string("object");
  check_name(name, r.path("object"), ctx.errors, "a lock object name");
  return name;
}

history::LockMode read_mode(ObjectReader& r, StepContext& ctx) {
  if (ctx.modes) {
    const std::string m = r.choice("mode", "", {"read", "write"});
    if (m.empty() && ctx.errors.ok()) {
      ctx.errors.message(r.path("mode"), "missing: this algorithm's locks take \"read\" or \"write\"");
    }
    return m == "read" ? history::LockMode::kRead : history::LockMode::kWrite;
  }
  r.choice("mode", "exclusive", {"exclusive"});
  return history::LockMode::kExclusive;
}

std::vector<Step> read_steps(const nlohmann::json& j, const std::string& path, StepContext& ctx,
                             int depth);

// A raw step's strings: arguments go into the history and onto the terminal, so they follow
// the rule for names, only longer (docs/scenarios.md, "Raw steps").
inline constexpr size_t kMaxArgumentBytes = 64 * 1024;
inline constexpr size_t kMaxArguments = 1024;

std::vector<std::string> read_arguments(ObjectReader& r, const std::string& key, bool required, StepContext& ctx) {
  std::vector<std::string> out;
  const nlohmann::json* a = r.get(key);
  if (a == nullptr) {
    if (required && ctx.errors.ok()) ctx.errors.message(r.path(key), "missing: the command and its arguments, e.g. [\"PERSIST\", \"L\"]");
    return out;
  }
  if (!a->is_array() || (required && a->empty()) || a->size() > kMaxArguments) {
    ctx.errors.expected(r.path(key), std::string(required ? "a non-empty" : "an") + " array of at most " +
                                         std::to_string(kMaxArguments) + " strings", *a);
    return out;
  }
  for (size_t i = 0; i < a->size() && ctx.errors.ok(); ++i) {
    const std::string p = r.path(key) + "/" + std::to_string(i);
    if (!(*a)[i].is_string()) {
      ctx.errors.expected(p, "a string (numbers are sent as their text: \"30000\")", (*a)[i]);
      break;
    }
    out.push_back((*a)[i].get<std::string>());
    check_name(out.back(), p, ctx.errors, "a command argument", kMaxArgumentBytes);
  }
  return out;
}

// A Lua body: at most 64 KiB, and no control character but tab, newline and carriage return
// (checked as a name with those three read as spaces).
void check_script_body(const std::string& body, const std::string& path, Errors& errors) {
  std::string flat = body;
  std::replace_if(flat.begin(), flat.end(), [](char c) { return c == '\t' || c == '\n' || c == '\r'; }, ' ');
  check_name(flat, path, errors, "a script (tabs and line breaks allowed)", kMaxArgumentBytes);
}

// Where a raw step goes: "node" names one of independent masters; elsewhere the client has one
// endpoint, the master (node0, or the replica promoted in its place), and "node" may only say so.
int64_t read_endpoint(ObjectReader& r, StepContext& ctx) {
  const nlohmann::json* n = r.get("node");
  if (n == nullptr) return 0;
  if (!n->is_string()) {
    ctx.errors.expected(r.path("node"), "a node name", *n);
    return 0;
  }
  const std::string name = n->get<std::string>();
  const std::vector<std::string>& nodes = ctx.s.node_names;
  const auto pos = std::find(nodes.begin(), nodes.end(), name);
  if (ctx.s.topology.kind == TopologyKind::kIndependent) {
    if (pos == nodes.end()) {
      std::string known;
      for (const std::string& x : nodes) known += (known.empty() ? "" : ", ") + x;
      ctx.errors.expected(r.path("node"), "one of the masters (" + known + ")", *n);
      return 0;
    }
    return pos - nodes.begin();
  }
  if (name != nodes.front()) {
    ctx.errors.expected(r.path("node"), "\"" + nodes.front() + "\": clients reach the master only (after a failover, "
                                        "the replica promoted in its place); leave \"node\" out",
                        *n);
  }
  return 0;
}

Step read_step(const nlohmann::json& j, const std::string& path, StepContext& ctx, int depth) {
  Step st;
  ObjectReader r(j, path, ctx.errors);
  const std::string op = r.choice("op", "", {"lock", "try_lock", "tryLock", "unlock", "force_unlock",
                                             "forceUnlock", "hold", "sleep", "write", "repeat", "command", "eval"});
  if (op.empty() && ctx.errors.ok()) ctx.errors.message(r.path("op"), "missing: every step has an \"op\"");
  st.at_ms = r.integer("at_ms", -1, 0, ctx.s.duration_ms + kernel::LocalClock::kMaxOffsetUs / 1000,
                       "milliseconds of the thread's local clock, within the run");
  check_at_ms(st.at_ms, r.path("at_ms"), ctx);
  const int64_t day_ms = 24 * 3600 * 1000;
  if (op == "lock" || op == "try_lock" || op == "tryLock") {
    st.op = op == "lock" ? StepOp::kLock : StepOp::kTryLock;
    st.lock = r.required_string("lock");
    check_name(st.lock, r.path("lock"), ctx.errors, "a lock name");
    st.mode = read_mode(r, ctx);
    st.object = read_object(r, ctx);
    st.lease_ms = r.integer("lease_ms", -1, -1, ctx.s.duration_ms + day_ms, "milliseconds, -1 for the watchdog");
    if (st.lease_ms == 0 && ctx.errors.ok()) ctx.errors.expected(r.path("lease_ms"), "-1 (watchdog) or a lease > 0 ms", 0);
    if (st.op == StepOp::kTryLock) st.wait_ms = r.integer("wait_ms", 0, 0, ctx.s.duration_ms + day_ms, "milliseconds");
    if (st.op == StepOp::kLock) st.interruptibly = r.boolean("interruptibly", false);
    if (const nlohmann::json* t = r.get("then")) st.steps = read_steps(*t, r.path("then"), ctx, depth + 1);
    if (const nlohmann::json* e = r.get("else")) st.otherwise = read_steps(*e, r.path("else"), ctx, depth + 1);
  } else if (op == "unlock") {
    st.op = StepOp::kUnlock;
    st.lock = r.required_string("lock");
    check_name(st.lock, r.path("lock"), ctx.errors, "a lock name");
    st.mode = read_mode(r, ctx);
    st.object = read_object(r, ctx);
  } else if (op == "force_unlock" || op == "forceUnlock") {
    st.op = StepOp::kForceUnlock;
    st.lock = r.required_string("lock");
    check_name(st.lock, r.path("lock"), ctx.errors, "a lock name");
  } else if (op == "hold" || op == "sleep") {
    st.op = op == "hold" ? StepOp::kHold : StepOp::kSleep;
    st.ms = r.required_integer("ms", 0, ctx.s.duration_ms + day_ms, "milliseconds");
  } else if (op == "write") {
    st.op = StepOp::kWrite;
    st.resource = r.required_string("resource");
    check_name(st.resource, r.path("resource"), ctx.errors, "a resource name");
    st.lock = r.string("lock", "");
    check_name(st.lock, r.path("lock"), ctx.errors, "a lock name");
    st.fenced = r.boolean("fenced", false);
  } else if (op == "command") {
    st.op = StepOp::kCommand;
    st.argv = read_arguments(r, "argv", true, ctx);
    st.endpoint = read_endpoint(r, ctx);
    st.state_keys = read_arguments(r, "state_keys", false, ctx);
  } else if (op == "eval") {
    st.op = StepOp::kEval;
    st.script = r.required_string("script");
    check_script_body(st.script, r.path("script"), ctx.errors);
    st.keys = read_arguments(r, "keys", false, ctx);
    st.args = read_arguments(r, "args", false, ctx);
    st.endpoint = read_endpoint(r, ctx);
    st.state_keys = read_arguments(r, "state_keys", false, ctx);
  } else if (op == "repeat") {
    st.op = StepOp::kRepeat;
    st.times = r.required_integer("times", 1, Limits::kMaxRepeat);
    if (const nlohmann::json* b = r.get("steps")) {
      st.steps = read_steps(*b, r.path("steps"), ctx, depth + 1);
    } else if (ctx.errors.ok()) {
      ctx.errors.message(r.path("steps"), "missing: a repeat has \"steps\"");
    }
  }
  r.finish();
  return st;
}

std::vector<Step> read_steps(const nlohmann::json& j, const std::string& path, StepContext& ctx,
                             int depth) {
  std::vector<Step> steps;
  if (depth > Limits::kMaxNesting) {
    ctx.errors.message(path, "steps nested deeper than " + std::to_string(Limits::kMaxNesting) + " levels");
    return steps;
  }
  if (!j.is_array()) {
    ctx.errors.expected(path, "an array of steps", j);
    return steps;
  }
  for (size_t i = 0; i < j.size() && ctx.errors.ok(); ++i) {
    if (++ctx.count > Limits::kMaxSteps) {
      ctx.errors.message(path, "more than " + std::to_string(Limits::kMaxSteps) + " steps in one script entry (use \"repeat\")");
      break;
    }
    steps.push_back(read_step(j[i], path + "/" + std::to_string(i), ctx, depth));
  }
  return steps;
}

// Adds the threads a pattern names: "all", "<client>", "<client>/*" or "<client>/t<k>".
void add_threads(const std::string& pattern, const std::string& path, const Scenario& s,
                 Errors& errors, std::vector<std::string>& out) {
  for (const ClientSpec& c : s.clients) {
    for (int64_t t = 0; t < c.threads; ++t) {
      const std::string name = c.name + "/t" + std::to_string(t);
      if (pattern == "all" || pattern == c.name || pattern == c.name + "/*" || pattern == name) {
        out.push_back(name);
      }
    }
  }
  if (out.empty() && errors.ok()) {
    errors.expected(path, "\"all\", a client name, \"<client>/*\" or an existing thread like \"" +
                              s.clients.front().name + "/t0\"", pattern);
  }
}

ScriptEntry read_entry(const nlohmann::json& j, const std::string& path, StepContext& ctx) {
  ScriptEntry e;
  ObjectReader r(j, path, ctx.errors);
  const nlohmann::json* threads = r.get("threads");
  if (threads == nullptr) {
    ctx.errors.message(r.path("threads"), "missing: which threads run these steps (\"all\", \"c1\", \"c1/t0\" or a list)");
  } else if (threads->is_string()) {
    add_threads(threads->get<std::string>(), r.path("threads"), ctx.s, ctx.errors, e.threads);
  } else if (threads->is_array() && !threads->empty()) {
    for (size_t i = 0; i < threads->size() && ctx.errors.ok(); ++i) {
      const std::string p = r.path("threads") + "/" + std::to_string(i);
      if (!(*threads)[i].is_string()) {
        ctx.errors.expected(p, "a thread pattern (string)", (*threads)[i]);
      } else {
        std::vector<std::string> one;
        add_threads((*threads)[i].get<std::string>(), p, ctx.s, ctx.errors, one);
        e.threads.insert(e.threads.end(), one.begin(), one.end());
      }
    }
  } else {
    ctx.errors.expected(r.path("threads"), "a thread pattern or a non-empty array of them", *threads);
  }
  ctx.count = 0;
  set_clock_window(e.threads, ctx);
  if (const nlohmann::json* steps = r.get("steps")) {
    e.steps = read_steps(*steps, r.path("steps"), ctx, 1);
  } else if (ctx.errors.ok()) {
    ctx.errors.message(r.path("steps"), "missing: the steps these threads run");
  }
  r.finish();
  return e;
}

std::vector<int64_t> read_choices(const nlohmann::json& j, const std::string& path, Errors& errors,
                                  int64_t lo, int64_t hi) {
  std::vector<int64_t> out;
  if (j.is_array()) {
    if (j.empty() || j.size() > 64) errors.expected(path, "1 to 64 choices", j);
    for (size_t i = 0; i < j.size() && errors.ok(); ++i) {
      out.push_back(read_integer(j[i], path + "/" + std::to_string(i), errors, lo, hi, "milliseconds"));
    }
  } else {
    out.push_back(read_integer(j, path, errors, lo, hi, "milliseconds"));
  }
  return out;
}

GeneratorSpec read_generator(const nlohmann::json& j, const std::string& path, Errors& errors,
                             const Scenario& s, bool modes) {
  GeneratorSpec g;
  ObjectReader r(j, path, errors);
  g.ops_per_thread = r.integer("ops_per_thread", 10, 1, Limits::kMaxRepeat);
  if (const nlohmann::json* locks = r.get("locks")) {
    g.locks.clear();
    if (locks->is_array() && !locks->empty() && locks->size() <= 100'000) {
      for (size_t i = 0; i < locks->size(); ++i) {
        if (!(*locks)[i].is_string() || (*locks)[i].get<std::string>().empty()) {
          errors.expected(r.path("locks") + "/" + std::to_string(i), "a lock name", (*locks)[i]);
          break;
        }
        if (!check_name((*locks)[i].get<std::string>(), r.path("locks") + "/" + std::to_string(i), errors, "a lock name")) break;
        g.locks.push_back((*locks)[i].get<std::string>());
      }
    } else if (locks->is_object()) {
      ObjectReader lr(*locks, r.path("locks"), errors);
      const int64_t count = lr.required_integer("count", 1, 100'000);
      const std::string prefix = lr.string("prefix", "L");
      // The names it makes, prefix + 0 .. count-1, must be names too.
      const size_t digits = std::to_string(std::max<int64_t>(count - 1, 0)).size();
      check_name(prefix, lr.path("prefix"), errors, "a lock name prefix (with " + std::to_string(count) + " locks)",
                 kMaxNameBytes - digits);
      lr.finish();
      for (int64_t i = 0; i < count && errors.ok(); ++i) g.locks.push_back(prefix + std::to_string(i));
    } else {
      errors.expected(r.path("locks"), "an array of lock names or {\"count\": n, \"prefix\": \"L\"}", *locks);
    }
  }
  const std::string acquire = r.choice("acquire", "lock", {"lock", "try_lock", "mixed"});
  g.acquire = acquire == "try_lock" ? GeneratorSpec::Acquire::kTryLock
              : acquire == "mixed"  ? GeneratorSpec::Acquire::kMixed
                                    : GeneratorSpec::Acquire::kLock;
  const int64_t big = s.duration_ms + 24 * 3600 * 1000;
  if (const nlohmann::json* w = r.get("wait_ms")) g.wait_ms = read_choices(*w, r.path("wait_ms"), errors, 0, big);
  if (const nlohmann::json* l = r.get("lease_ms")) g.lease_ms = read_choices(*l, r.path("lease_ms"), errors, -1, big);
  for (int64_t lease : g.lease_ms) {
    if (lease == 0 && errors.ok()) errors.expected(r.path("lease_ms"), "-1 (watchdog) or leases > 0 ms", 0);
  }
  if (const nlohmann::json* ls = r.get("lease_swarm")) {
    ObjectReader lr(*ls, r.path("lease_swarm"), errors);
    g.lease_swarm_percent = lr.integer("percent", 0, 0, 100, "percent of seeds");
    if (const nlohmann::json* l = lr.get("lease_ms")) {
      g.lease_swarm_ms = read_choices(*l, lr.path("lease_ms"), errors, -1, big);
    } else if (errors.ok()) {
      errors.message(lr.path("lease_ms"), "missing: the leases of the seeds the swarm picks");
    }
    for (int64_t lease : g.lease_swarm_ms) {
      if (lease == 0 && errors.ok()) errors.expected(lr.path("lease_ms"), "-1 (watchdog) or leases > 0 ms", 0);
    }
    lr.finish();
  }
  if (const nlohmann::json* h = r.get("hold_ms")) {
    Range rg = read_range(*h, r.path("hold_ms"), errors, 0, big, "milliseconds");
    g.hold_min_ms = rg.lo;
    g.hold_max_ms = rg.hi;
  }
  if (const nlohmann::json* t = r.get("think_ms")) {
    Range rg = read_range(*t, r.path("think_ms"), errors, 0, big, "milliseconds");
    g.think_min_ms = rg.lo;
    g.think_max_ms = rg.hi;
  }
  if (const nlohmann::json* st = r.get("start_ms")) {
    Range rg = read_range(*st, r.path("start_ms"), errors, 0, s.duration_ms, "milliseconds");
    g.start_min_ms = rg.lo;
    g.start_max_ms = rg.hi;
  }
  g.modes = modes;
  g.read_percent = r.integer("read_percent", 0, 0, modes ? 100 : 0, modes ? "percent" : "percent; this algorithm has no read/write modes");
  if (const nlohmann::json* wr = r.get("write")) {
    ObjectReader wrr(*wr, r.path("write"), errors);
    g.resource = wrr.required_string("resource");
    check_name(g.resource, wrr.path("resource"), errors, "a resource name");
    g.fenced = wrr.boolean("fenced", false);
    g.write_at_end = wrr.choice("at", "start", {"start", "end"}) == "end";
    wrr.finish();
  }
  r.finish();
  return g;
}

}  // namespace

void parse_workload(const nlohmann::json& j, const std::string& path, Errors& errors,
                    Scenario& s) {
  ObjectReader r(j, path, errors);
  const algorithms::AlgorithmInfo* info = algorithms::find_algorithm(s.algorithm);
  const bool modes = info != nullptr && info->modes;
  const bool objects = info != nullptr && info->lock_objects;
  const nlohmann::json* script = r.get("script");
  const nlohmann::json* gen = r.get("generator");
  if ((script == nullptr) == (gen == nullptr) && errors.ok()) {
    errors.message(path, "expected exactly one of \"script\" and \"generator\"");
  }
  if (script != nullptr && errors.ok()) {
    if (!script->is_array() || script->empty()) {
      errors.expected(r.path("script"), "a non-empty array of {\"threads\", \"steps\"}", *script);
    }
    StepContext ctx{errors, s, modes, objects, 0, 0, 0, {}, {}};
    for (size_t i = 0; script->is_array() && i < script->size() && errors.ok(); ++i) {
      s.workload.script.push_back(read_entry((*script)[i], r.path("script") + "/" + std::to_string(i), ctx));
    }
  }
  if (gen != nullptr && errors.ok()) s.workload.generator = read_generator(*gen, r.path("generator"), errors, s, modes);
  r.finish();
}

}  // namespace lockstep::scenario::internal
