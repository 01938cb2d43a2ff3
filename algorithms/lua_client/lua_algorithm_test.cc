// Lua algorithms: loading and checking a declaration, the sandbox, the `lockstep` table's waits
// (calls, scripts, sleep, pcall, pub/sub, semaphores, background tasks), errors that end a run,
// and determinism. Each test writes its Lua file and scenario into a fresh folder.
#include "algorithms/lua_client/lua_algorithm.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/scenario/parse.h"
#include "harness/scenario/ran_test_util.h"
#include "harness/scenario/run.h"

namespace lockstep::algorithms::lua_client {
namespace {

namespace fs = std::filesystem;

// A folder of its own per test (names must not collide across tests: the registry is global).
class LuaAlgorithmTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("lockstep-lua-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream(p) << text;
    return p.string();
  }

  // A scenario running `file` with two clients contending for L (c1 holds 1 s, c2 from 0.2 s).
  std::string scenario(const std::string& file, const std::string& options = "{}", int64_t hold_ms = 1000,
                       const std::string& expect = R"({"verdict": "ok"})") {
    const std::string text = R"({
      "name": "lua-test", "duration_ms": )" + std::to_string(hold_ms + 30000) + R"(, "seed": 7,
      "algorithm": {"file": ")" + file + R"(", "options": )" + options + R"(},
      "clients": [{"name": "c1"}, {"name": "c2"}],
      "workload": {"script": [
        {"threads": "c1", "steps": [{"op": "lock", "lock": "L",
          "then": [{"op": "hold", "ms": )" + std::to_string(hold_ms) + R"(}, {"op": "unlock", "lock": "L"}]}]},
        {"threads": "c2", "steps": [{"op": "lock", "lock": "L", "at_ms": 200,
          "then": [{"op": "hold", "ms": 100}, {"op": "unlock", "lock": "L"}]}]}]},
      "expect": )" + expect + "}";
    return write("scenario.json", text);
  }

  fs::path dir_;
};

// The tutorial's lock in a few lines, with a name that is unique per test.
std::string simple_lock(const std::string& name, const std::string& extra_acquire = "",
                        const std::string& extra_fields = "") {
  return R"(
local tokens = {}
return {
  name = ")" + name + R"(",
  default_lease_ms = 10000,
  scripts = { release = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0" },
  )" + extra_fields + R"(
  acquire = function(thread, req)
    )" + extra_acquire + R"(
    local token = lockstep.owner(thread) .. ":" .. lockstep.random(1, 1000000)
    while true do
      local reply, err = lockstep.call({"SET", req.lock, token, "NX", "PX", req.lease_ms}, {op = req.op})
      if err then return nil, err end
      if reply then tokens[thread.index] = token; return {acquired = true, count = 1} end
      lockstep.sleep(50)
    end
  end,
  release = function(thread, req)
    local reply, err = lockstep.eval("release", {req.lock}, {tokens[thread.index]}, {op = req.op})
    if err then return nil, err end
    return reply == 1 and {released = true, count = 0} or nil, "not held"
  end,
}
)";
}

TEST_F(LuaAlgorithmTest, ASimpleLockRunsAndIsRegisteredUnderItsName) {
  const std::string lua = write("lock.lua", simple_lock("lua-test-simple"));
  Result<scenario::Scenario> s = scenario::load_scenario(scenario("lock.lua"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s.value().algorithm, "lua-test-simple");
  EXPECT_EQ(s.value().algorithm_file, fs::weakly_canonical(lua).string());
  const AlgorithmInfo* info = find_algorithm("lua-test-simple");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->lock_kind, "simple");
  scenario::testing::Ran r = scenario::testing::run_checked(s, "simple");
  // c2 waits for c1's unlock at 1 s, then gets the lock: two grants, one after the other.
  auto holds = r.of("hold_begin");
  ASSERT_EQ(holds.size(), 2u);
  EXPECT_EQ(holds[0]["thread"], "c1/t0");
  EXPECT_EQ(holds[1]["thread"], "c2/t0");
  EXPECT_GE(holds[1]["t"].get<int64_t>(), 1'000'000);  // microseconds
  // The declared default lease is what the history records.
  auto invokes = r.of("invoke");
  ASSERT_FALSE(invokes.empty());
  EXPECT_EQ(invokes[0]["lease_ms"], 10000);
  EXPECT_FALSE(invokes[0].contains("watchdog_ms"));
  // The release script ran as a script the history names.
  bool named = false;
  for (const auto& e : r.of("exec")) named = named || e.value("script", "") == "release";
  EXPECT_TRUE(named);
}

// The histories of two runs of the scenario in `scenario_file` with `seed` (empty when a run failed).
std::pair<std::string, std::string> two_runs(const std::string& scenario_file, uint64_t seed) {
  Result<scenario::Scenario> s = scenario::load_scenario(scenario_file);
  EXPECT_TRUE(s.ok()) << s.status().message();
  if (!s.ok()) return {};
  scenario::RunOptions options;
  options.seed = seed;
  Result<scenario::RunReport> a = scenario::run_scenario(s.value(), options);
  Result<scenario::RunReport> b = scenario::run_scenario(s.value(), options);
  EXPECT_TRUE(a.ok() && b.ok());
  if (!a.ok() || !b.ok()) return {};
  return {a.value().history, b.value().history};
}

TEST_F(LuaAlgorithmTest, TheSameSeedGivesTheSameHistory) {
  write("lock.lua", simple_lock("lua-test-determinism"));
  const auto [a, b] = two_runs(scenario("lock.lua"), 7);
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, b);
  const auto [c, d] = two_runs(scenario("lock.lua"), 8);
  EXPECT_NE(a, c);  // the token draws differ
}

// tostring of a table prints no address (sim/core/lua_tostring.h): a token made of it is the same
// in every run, as a lockstep.random token is; with addresses it differed between two runs.
TEST_F(LuaAlgorithmTest, ATokenMadeOfTostringIsTheSameInEveryRun) {
  std::string lua = simple_lock("lua-test-tostring-token");
  const std::string drawn = "lockstep.owner(thread) .. \":\" .. lockstep.random(1, 1000000)";
  ASSERT_NE(lua.find(drawn), std::string::npos);
  lua.replace(lua.find(drawn), drawn.size(), "tostring(thread) .. '/' .. tostring({})");
  write("lock.lua", lua);
  const auto [a, b] = two_runs(scenario("lock.lua"), 7);
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("table: 0x"), std::string::npos) << "the token is not in the history";
  EXPECT_EQ(a.find("table: 0x7f"), std::string::npos) << "an address reached the history";
}

TEST_F(LuaAlgorithmTest, DeclarationErrorsNameTheFileAndTheField) {
  struct Case {
    std::string lua;
    std::string expected;
  };
  const Case cases[] = {
      {"return 5", "the file must return a table"},
      {"return {acquire = function() end, release = function() end}", "name: expected a string"},
      {"return {name = 'Bad Name', acquire = function() end, release = function() end}", "name: expected 1 to 64"},
      {"return {name = 'x1', kind = 'mutex', acquire = function() end, release = function() end}",
       "kind: expected one of simple, reentrant, rwlock, redlock, found 'mutex'"},
      {"return {name = 'x2', relase = function() end, acquire = function() end}", "unknown field 'relase'"},
      {"return {name = 'x3', acquire = function() end}", "release: expected a function"},
      {"return {name = 'x4', options = {n = {default = 0, min = 1}}, acquire = function() end, release = function() end}",
       "options.n: the default 0 is not within [min, max]"},
      {"return {name = 'x5', scripts = {s = {file = 'missing.lua'}}, acquire = function() end, release = function() end}",
       "scripts.s: "},
      {"return {name = 'x6', coverage = {'nope'}, acquire = function() end, release = function() end}",
       "coverage[1]: 'nope' is not a coverage point"},
      {"return {name = 'set-nx-px', acquire = function() end, release = function() end}",
       "is the name of a built-in algorithm"},
      {"local x = \nreturn {", "lock.lua:2:"},
      {"error('boom')", "lock.lua:1: boom"},
      {"return {name = 'x7', default_lease_ms = 'nope', acquire = function() end, release = function() end}",
       "default_lease_ms: 'nope' is not an integer option"},
      {"return {name = 'x8', kind = 'redlock', scripts = {r = 'return 0'}, grants = {r = 'sometimes'}, "
       "acquire = function() end, release = function() end}",
       "grants.r: expected the integer reply that grants, false for a nil reply, or \"never\""},
      {"return {name = 'x9', options = {n = 1}, renews = 'n', acquire = function() end, release = function() end}",
       "renews: 'n' is not a boolean option"},
      {"return {name = 'x10', renews = 1, acquire = function() end, release = function() end}",
       "renews: expected true or false"},
  };
  int i = 0;
  for (const Case& c : cases) {
    const std::string sub = "case" + std::to_string(i++);
    const std::string file = write(sub + "/lock.lua", c.lua);
    Result<const AlgorithmInfo*> loaded = load_lua_algorithm(file);
    ASSERT_FALSE(loaded.ok()) << c.lua;
    EXPECT_NE(loaded.status().message().find(c.expected), std::string::npos) << loaded.status().message();
    EXPECT_NE(loaded.status().message().find("lock.lua"), std::string::npos) << loaded.status().message();
  }
  // Through a scenario, the error names the scenario file and /algorithm/file too.
  write("bad.lua", "return 5");
  Result<scenario::Scenario> s = scenario::load_scenario(scenario("bad.lua"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.status().message().find("scenario.json: /algorithm/file: "), std::string::npos) << s.status().message();
  EXPECT_NE(s.status().message().find("bad.lua: the file must return a table"), std::string::npos);
  // A missing file, and a name and a file at once.
  Result<scenario::Scenario> missing = scenario::load_scenario(scenario("nowhere.lua"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("nowhere.lua: the algorithm's Lua file: no such file"), std::string::npos)
      << missing.status().message();
}

TEST_F(LuaAlgorithmTest, OptionsAreCheckedAgainstTheDeclaration) {
  write("lock.lua", simple_lock("lua-test-options", "",
                                "options = {retry = {default = 50, min = 1, max = 100}, fast = false, "
                                "mode = {default = 'a', values = {'a', 'b'}}},"));
  EXPECT_TRUE(scenario::load_scenario(scenario("lock.lua", R"({"retry": 100, "fast": true, "mode": "b"})")).ok());
  for (const auto& [options, expected] :
       {std::pair<std::string, std::string>{R"({"retry": 101})", "/algorithm/options/retry: expected an integer in [1, 100], found number 101"},
        {R"({"fast": 1})", "/algorithm/options/fast"},
        {R"({"mode": "c"})", "/algorithm/options/mode: expected one of"},
        {R"({"other": 1})", "/algorithm/options"}}) {
    Result<scenario::Scenario> s = scenario::load_scenario(scenario("lock.lua", options));
    ASSERT_FALSE(s.ok()) << options;
    EXPECT_NE(s.status().message().find(expected), std::string::npos) << s.status().message();
  }
  const AlgorithmInfo* info = find_algorithm("lua-test-options");
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->option_defaults.dump(), R"({"fast":false,"mode":"a","retry":50})");
  EXPECT_FALSE(info->renews_default_lease(nlohmann::json::object()));  // no `renews`: never

  // renews = "<boolean option>": it renews when that option is true.
  write("renewing.lua", simple_lock("lua-test-renews-option", "", "options = {keep = false}, renews = 'keep',"));
  ASSERT_TRUE(scenario::load_scenario(scenario("renewing.lua")).ok());
  const AlgorithmInfo* renewing = find_algorithm("lua-test-renews-option");
  ASSERT_NE(renewing, nullptr);
  EXPECT_FALSE(renewing->renews_default_lease(nlohmann::json::object()));
  EXPECT_TRUE(renewing->renews_default_lease({{"keep", true}}));
}

// Runs `s`, which must fail, and returns the run's error.
std::string run_error(const Result<scenario::Scenario>& s) {
  EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.status().message());
  if (!s.ok()) return "";
  Result<scenario::RunReport> r = scenario::run_scenario(s.value(), {});
  EXPECT_FALSE(r.ok());
  return r.ok() ? "" : r.status().message();
}

TEST_F(LuaAlgorithmTest, AnErrorInTheUsersLuaEndsTheRunNamingFileAndLine) {
  write("lock.lua", simple_lock("lua-test-error", "local x = nil; x.field = 1"));
  const std::string e = run_error(scenario::load_scenario(scenario("lock.lua")));
  EXPECT_NE(e.find("scenario.json: c1: "), std::string::npos) << e;
  EXPECT_NE(e.find("lock.lua:9: attempt to index local 'x'"), std::string::npos) << e;
}

// A huge error message is cut to its first 4 KiB (it went whole to stderr and result.json).
TEST_F(LuaAlgorithmTest, AHugeErrorMessageIsCut) {
  write("lock.lua", simple_lock("lua-test-huge-error", "error(string.rep('E', 10 * 1024 * 1024), 0)"));
  const std::string e = run_error(scenario::load_scenario(scenario("lock.lua")));
  EXPECT_NE(e.find(std::string(4096, 'E') + "... (an error message of 10485760 bytes)"), std::string::npos)
      << e.substr(0, 200);
  EXPECT_LT(e.size(), 5000u);
}

// What acquire returns goes into the history: a count or validity the history format cannot hold
// ends the run with the algorithm's error, instead of a history the checker then refuses as "a bug".
TEST_F(LuaAlgorithmTest, ResultsOutsideTheHistorysLimitsAreTheAlgorithmsError) {
  std::string lock = simple_lock("lua-test-bad-count");
  const std::string good = "{acquired = true, count = 1}";
  lock.replace(lock.find(good), good.size(), "{acquired = true, count = -3}");
  write("lock.lua", lock);
  const std::string e = run_error(scenario::load_scenario(scenario("lock.lua")));
  EXPECT_NE(e.find("returned count = -3 (expected a number in [0, 2147483647])"), std::string::npos) << e;
}

// A field of the wrong type is the algorithm's error too: `acquired = "yes"` used to be read as
// true and `token = "abc"` dropped, recording results the algorithm did not give.
TEST_F(LuaAlgorithmTest, ResultsOfTheWrongTypeAreTheAlgorithmsError) {
  const std::string good = "{acquired = true, count = 1}";
  const std::pair<const char*, const char*> cases[] = {
      {"{acquired = 'yes', count = 1}", "acquire returned acquired = a string (expected a boolean)"},
      {"{acquired = true, count = 1, token = 'abc'}", "acquire returned token = a string (expected a number)"},
      {"{acquired = true, count = '1'}", "acquire returned count = a string (expected a number)"},
      {"{acquired = true, outcome = {}}", "acquire returned outcome = a table (expected ok, fail or unknown)"},
      {"{acquired = true, error = {}}", "acquire returned error = a table (expected a string)"},
      // An ok answer without `acquired` used to read as "not acquired", whatever the server did.
      {"{count = 1}", "acquire returned a table without acquired (an ok result says whether it acquired"},
      {"{outcome = 'ok', token = 7}", "acquire returned a table without acquired"}};
  int n = 0;
  for (const auto& [result, message] : cases) {
    const std::string file = "lock" + std::to_string(n) + ".lua";  // a file is loaded once per process
    std::string lock = simple_lock("lua-test-bad-type-" + std::to_string(n++));
    lock.replace(lock.find(good), good.size(), result);
    write(file, lock);
    const std::string e = run_error(scenario::load_scenario(scenario(file)));
    EXPECT_NE(e.find(message), std::string::npos) << result << ": " << e;
  }
}

// lockstep reads the returned tables raw: a metatable whose __index raises was an unprotected Lua
// error, and lockstep aborted (exit 134), whether on acquire's result or on the module itself.
TEST_F(LuaAlgorithmTest, TablesWithMetatablesAreReadRaw) {
  std::string lock = simple_lock("lua-test-metatable-result");
  const std::string good = "{acquired = true, count = 1}";
  lock.replace(lock.find(good), good.size(),
               "setmetatable({acquired = true, count = 1}, {__index = function(t, k) error('no ' .. k) end})");
  write("lock.lua", lock);
  Result<scenario::Scenario> s = scenario::load_scenario(scenario("lock.lua"));
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(scenario::testing::run_checked(s, "metatable result").of("hold_begin").size(), 2u);
  std::string module = simple_lock("lua-test-metatable-module");
  module.replace(module.find("return {"), 8, "return setmetatable({");
  module.replace(module.rfind('}'), 1, "}, {__index = function(t, k) error('no field ' .. k) end})");
  write("module.lua", module);
  Result<scenario::Scenario> m = scenario::load_scenario(scenario("module.lua"));
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(scenario::testing::run_checked(m, "metatable module").of("hold_begin").size(), 2u);
}

// A wait out of range names the range (Lua's own formatting has no %lld: the message read
// "expected an integer in [%lld, %lld], found (null)").
TEST_F(LuaAlgorithmTest, AnArgumentOutOfRangeNamesTheRange) {
  write("lock.lua", simple_lock("lua-test-sleep-nan", "lockstep.sleep(-1)"));
  const std::string e = run_error(scenario::load_scenario(scenario("lock.lua")));
  EXPECT_NE(e.find("lockstep.sleep: ms: expected an integer in [0, 1125899906842624], found -1"), std::string::npos) << e;
}

// A value an error message quotes is cut after 80 bytes: a megabyte coverage name made a
// megabyte line.
TEST_F(LuaAlgorithmTest, AValueQuotedInAnErrorIsCut) {
  write("cover.lua", simple_lock("lua-test-long-cover", "lockstep.cover(string.rep('x', 1000000))"));
  const std::string e = run_error(scenario::load_scenario(scenario("cover.lua")));
  EXPECT_NE(e.find("lockstep.cover: '" + std::string(80, 'x') + "... (1000000 bytes)' is not among"), std::string::npos) << e.substr(0, 300);
  EXPECT_LT(e.size(), 1000u);
}

TEST_F(LuaAlgorithmTest, TheSandboxHasNoOsIoOrLoaders) {
  for (const char* probe : {"os.time()", "io.open('/etc/passwd')", "require('os')", "loadstring('return 1')()",
                            "dofile('/etc/passwd')", "print('hi')", "coroutine.yield()", "debug.getinfo(1)",
                            "math.randomseed(1)", "string.dump(print)"}) {
    const std::string name = "lua-test-sandbox-" + std::to_string(std::hash<std::string>()(probe) % 100000);
    fs::remove_all(dir_ / "p");
    write("p/lock.lua", simple_lock(name, probe));
    const std::string e = run_error(scenario::load_scenario(scenario("p/lock.lua")));
    EXPECT_NE(e.find("lock.lua:"), std::string::npos) << probe << ": " << e;
  }
}

TEST_F(LuaAlgorithmTest, ALoopThatNeverWaitsRunsIntoTheInstructionBudget) {
  write("lock.lua", simple_lock("lua-test-budget", "while true do end"));
  const std::string e = run_error(scenario::load_scenario(scenario("lock.lua")));
  EXPECT_NE(e.find("Lua instructions without waiting"), std::string::npos) << e;
  EXPECT_NE(e.find("lock.lua:"), std::string::npos) << e;
}

TEST_F(LuaAlgorithmTest, MemoryIsLimitedPerClient) {
  write("lock.lua", simple_lock("lua-test-memory", "local t = {} for i = 1, 1e9 do t[i] = i end"));
  const std::string e = run_error(scenario::load_scenario(scenario("lock.lua")));
  EXPECT_NE(e.find("memory limit"), std::string::npos) << e;
}

TEST_F(LuaAlgorithmTest, AWaitInsidePcallStillWaitsAndErrorsAreCaught) {
  // pcall is written over coroutines: a call inside it reaches the simulator, and an error
  // inside it is caught as in plain Lua.
  write("lock.lua", simple_lock("lua-test-pcall",
                                "local ok, r = pcall(function() return lockstep.call({'PING'}) end)\n"
                                "    assert(ok and r.ok == 'PONG', 'ping inside pcall')\n"
                                "    local ok2, e = pcall(error, 'inner')\n"
                                "    assert(not ok2 and e == 'inner', tostring(ok2) .. ' ' .. tostring(e))\n"
                                "    local ok3, e3 = xpcall(function() lockstep.sleep(1); error('late', 0) end, function(m) return 'handled ' .. m end)\n"
                                "    assert(not ok3 and e3 == 'handled late', e3)"));
  Result<scenario::Scenario> s = scenario::load_scenario(scenario("lock.lua"));
  scenario::testing::Ran r = scenario::testing::run_checked(s, "pcall");
  EXPECT_EQ(r.of("hold_begin").size(), 2u);
}

TEST_F(LuaAlgorithmTest, RepliesReachLuaAsRedisHandsThemToScripts) {
  write("lock.lua", simple_lock("lua-test-replies",
                                "lockstep.call({'RPUSH', 'list', 'a', 'b'})\n"
                                "    local r = lockstep.call({'LRANGE', 'list', 0, -1})\n"
                                "    assert(r[1] == 'a' and r[2] == 'b', 'array')\n"
                                "    assert(lockstep.call({'GET', 'missing'}) == false, 'nil is false')\n"
                                "    assert(lockstep.call({'INCR', 'n'}) >= 1, 'integer')\n"
                                "    local bad, err = lockstep.call({'INCR', 'list'})\n"
                                "    assert(bad == nil and err:find('WRONGTYPE') == 1, 'error text')\n"
                                "    assert(lockstep.TIMEOUT == 'timeout')"));
  scenario::testing::Ran r = scenario::testing::run_checked(scenario::load_scenario(scenario("lock.lua")), "replies");
  EXPECT_EQ(r.of("hold_begin").size(), 2u);
}

// A lock with a watchdog (a background task), pub/sub wake-ups and a semaphore: Redisson's shape.
constexpr const char* kWatchdogLock = R"(
local tokens, dogs = {}, {}
local wake = nil
return {
  name = "lua-test-watchdog",
  coverage = {"renewed", "renewal_lost", "woken_by_message"},
  scripts = {
    renew = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0",
    release = "if redis.call('get', KEYS[1]) == ARGV[1] then redis.call('del', KEYS[1]); redis.call('publish', 'unlock:' .. KEYS[1], 'x'); return 1 end return 0",
  },
  acquire = function(thread, req)
    local lease = req.lease_ms >= 0 and req.lease_ms or lockstep.client.lock_watchdog_timeout_ms
    local token = lockstep.owner(thread)
    wake = wake or lockstep.semaphore(0)
    assert(lockstep.subscribe('unlock:' .. req.lock, function(channel, message) wake:release(1) end))
    while true do
      local reply, err = lockstep.call({"SET", req.lock, token, "NX", "PX", lease}, {op = req.op})
      if err then return nil, err end
      if reply then
        tokens[thread.index] = token
        if req.lease_ms < 0 then
          dogs[thread.index] = lockstep.spawn(function()
            while true do
              lockstep.sleep(math.floor(lease / 3))
              local id = lockstep.begin_op{thread = thread, lock = req.lock, lease_ms = lease}
              local r, e = lockstep.evalsha("renew", {req.lock}, {token, lease}, {op = id})
              lockstep.end_op(id, {outcome = e and (e == lockstep.TIMEOUT and "unknown" or "fail") or "ok", renewed = r == 1})
              if r == 1 then lockstep.cover("renewed") end
              if r == 0 then lockstep.cover("renewal_lost"); lockstep.hold_lost(thread, req.lock); return end
            end
          end)
        end
        return {acquired = true, count = 1}
      end
      if wake:acquire(5000) then lockstep.cover("woken_by_message") end
    end
  end,
  release = function(thread, req)
    lockstep.cancel(dogs[thread.index])
    assert(not lockstep.running(dogs[thread.index] or -1))
    local reply, err = lockstep.eval("release", {req.lock}, {tokens[thread.index]}, {op = req.op})
    if err then return nil, err end
    return reply == 1 and {released = true, count = 0} or nil, "not held"
  end,
}
)";

TEST_F(LuaAlgorithmTest, AWatchdogKeepsALongHoldAndAMessageWakesTheWaiter) {
  write("lock.lua", kWatchdogLock);
  // c1 holds 70 s with the watchdog (30 s lease): renewals keep it; c2 waits and is woken.
  Result<scenario::Scenario> s = scenario::load_scenario(scenario("lock.lua", "{}", 70000));
  scenario::testing::Ran r = scenario::testing::run_checked(s, "watchdog");
  auto holds = r.of("hold_begin");
  ASSERT_EQ(holds.size(), 2u);
  EXPECT_GE(holds[1]["t"].get<int64_t>(), 70'000'000);
  EXPECT_LT(holds[1]["t"].get<int64_t>(), 70'100'000);  // woken by the unlock message, not by the 5 s wait
  EXPECT_GE(r.of("invoke", "op", "renew").size(), 6u);
  EXPECT_EQ(r.report.verdict, "ok");
  EXPECT_GE(r.report.coverage.points().at("renewed"), 6u);
  EXPECT_GE(r.report.coverage.points().at("woken_by_message"), 1u);
}

// The tutorial's files (docs/lua-algorithms.md) give what the tutorial shows.
TEST(LuaExamples, TheTutorialsLockViolatesMutualExclusionUnderAShortLease) {
  Result<scenario::Scenario> s =
      scenario::load_scenario(std::string(LOCKSTEP_SOURCE_DIR) + "/examples/lua/simple-lock-short-lease.json");
  scenario::testing::Ran r = scenario::testing::run_checked(s, "tutorial");
  EXPECT_EQ(r.report.verdict, "violation");
  for (const auto& p : r.report.check.properties) {
    if (p.name == "mutual_exclusion") {
      EXPECT_EQ(p.verdict, checker::Verdict::kViolation);
    } else if (p.name == "linearizability") {
      EXPECT_EQ(p.verdict, checker::Verdict::kOk);
    }
  }
  // Declared options reach the lease: the history records 2 s.
  EXPECT_EQ(r.of("invoke")[0]["lease_ms"], 2000);
}

TEST_F(LuaAlgorithmTest, AFolderIsLoadedThroughItsLockFileWithScriptFiles) {
  write("my-lock/release.lua",
        "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0");
  std::string lua = simple_lock("lua-test-folder");
  lua.replace(lua.find("scripts = {"), lua.find("},", lua.find("scripts = {")) - lua.find("scripts = {") + 2,
              "scripts = { release = { file = 'release.lua' } },");
  write("my-lock/lock.lua", lua);
  scenario::testing::Ran r = scenario::testing::run_checked(scenario::load_scenario(scenario("my-lock")), "folder");
  EXPECT_EQ(r.of("hold_begin").size(), 2u);
}

}  // namespace
}  // namespace lockstep::algorithms::lua_client
