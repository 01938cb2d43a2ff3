// Live mode against real redis-servers (docs/live.md): every fault live mode makes real has an
// observable effect, the checker judges live histories as it judges simulated ones, and nothing
// is left behind. Needs the Debian package redis-server (CI installs it).
#include <signal.h>
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "harness/live/live_run.h"
#include "harness/live/redis_server.h"
#include "harness/scenario/parse.h"
#include "harness/scenario/run.h"

namespace lockstep::live {
namespace {

using redis::Reply;

// A temporary directory for the servers of one test, removed with it.
class TempParent {
 public:
  TempParent() : path_("/tmp/lockstep-live-test-XXXXXX") { EXPECT_NE(mkdtemp(path_.data()), nullptr); }
  ~TempParent() { std::filesystem::remove_all(path_); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::unique_ptr<RedisServer> start(const std::string& parent, kernel::Persistence p = kernel::Persistence::kNone) {
  kernel::NodeOptions o;
  o.persistence = p;
  Result<std::unique_ptr<RedisServer>> s = RedisServer::start("node0", parent, o);
  EXPECT_TRUE(s.ok()) << s.status().message();
  return s.ok() ? std::move(s.value()) : nullptr;
}

Reply must(Result<Reply> r) {
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r.ok() ? r.value() : Reply::error("no reply");
}

TEST(RedisServerTest, PausedNodeAnswersNothingUntilResumed) {
  const TempParent tmp;
  const std::string& parent = tmp.path();
  auto s = start(parent);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(must(s->command({"SET", "k", "v"})), Reply::ok());
  s->pause();
  Result<Reply> during = s->command({"GET", "k"}, 300);
  EXPECT_FALSE(during.ok());
  EXPECT_NE(during.status().message().find("no reply"), std::string::npos) << during.status().message();
  s->resume();
  EXPECT_EQ(must(s->command({"GET", "k"})), Reply::bulk("v"));
}

TEST(RedisServerTest, RestartWithoutPersistenceLosesTheKey) {
  const TempParent tmp;
  const std::string& parent = tmp.path();
  auto s = start(parent);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(must(s->command({"SET", "k", "v"})), Reply::ok());
  s->kill();
  EXPECT_FALSE(s->command({"PING"}, 200).ok());
  ASSERT_TRUE(s->restart().ok());
  EXPECT_EQ(must(s->command({"GET", "k"})), Reply::nil());
}

TEST(RedisServerTest, RestartWithAofAlwaysKeepsTheKey) {
  const TempParent tmp;
  const std::string& parent = tmp.path();
  auto s = start(parent, kernel::Persistence::kAofAlways);
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(must(s->command({"SET", "k", "v"})), Reply::ok());
  s->kill();
  ASSERT_TRUE(s->restart().ok());
  EXPECT_EQ(must(s->command({"GET", "k"})), Reply::bulk("v"));
}

TEST(RedisServerTest, NothingLeftBehind) {
  const TempParent tmp;
  const std::string& parent = tmp.path();
  auto s = start(parent, kernel::Persistence::kAofAlways);
  ASSERT_NE(s, nullptr);
  const std::string dir = s->dir();
  const uint16_t port = s->port();
  EXPECT_TRUE(std::filesystem::exists(dir));
  s.reset();
  EXPECT_FALSE(std::filesystem::exists(dir));
  EXPECT_FALSE(redis_command(port, {"PING"}, 200).ok());  // no server on its port any more
}

// lockstep's clock shim in the server: a +40 s jump of the node's clock expires a 30 s key at
// once.
TEST(RedisServerTest, ClockJumpExpiresTheKeyAtOnce) {
  const std::string shim = find_clock_shim();
  ASSERT_FALSE(shim.empty()) << "liblockstep_clock_shim.so not found";
  const TempParent tmp;
  const std::string& parent = tmp.path();
  Result<std::unique_ptr<RedisServer>> started = RedisServer::start("node0", parent, kernel::NodeOptions(), shim);
  ASSERT_TRUE(started.ok()) << started.status().message();
  RedisServer& s = *started.value();
  s.set_clock(0, 0, 0);
  EXPECT_EQ(must(s.command({"SET", "k", "v", "PX", "30000"})), Reply::ok());
  EXPECT_GT(must(s.command({"PTTL", "k"})).integer, 29'000);
  s.set_clock(40'000'000, 0, 0);
  EXPECT_EQ(must(s.command({"GET", "k"})), Reply::nil());
  // The server's TIME is 40 s ahead of ours now.
  const Reply time = must(s.command({"TIME"}));
  ASSERT_EQ(time.elements.size(), 2u);
  const int64_t ours = std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  EXPECT_NEAR(std::stoll(time.elements[0].str) - ours, 40, 1);
}

scenario::Scenario parse(const std::string& text) {
  Result<scenario::Scenario> s = scenario::parse_scenario_text(text, "live-test.json");
  if (!s.ok()) ADD_FAILURE() << s.status().message();
  return s.value();  // aborts the test binary on a bad scenario text: a test bug
}

struct Ran {
  scenario::RunReport report;
  std::string version;
};

Ran run_live(const scenario::Scenario& s) {
  LiveRun live;
  scenario::RunOptions o;
  o.source = &live;
  Result<scenario::RunReport> r = scenario::run_scenario(s, o);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return Ran{r.ok() ? r.value() : scenario::RunReport(), live.redis_version()};
}

std::string verdict(const scenario::RunReport& r, const std::string& property) {
  return checker::verdict_name(r.check.property(property).verdict);
}

// Two clients take turns on one lock through Redisson's pub/sub wake-up: ok, and the history
// says it is live.
TEST(LiveRunTest, ContentionIsOkAndTheHistorySaysLive) {
  const scenario::Scenario s = parse(R"({
    "name": "live-contention", "duration_ms": 1500,
    "algorithm": {"name": "redisson-lock"},
    "clients": {"count": 2, "threads": 2},
    "workload": {"generator": {"locks": ["L"], "ops_per_thread": 5, "hold_ms": [10, 30], "think_ms": [0, 20]}},
    "expect": {"verdict": "ok"}})");
  const Ran ran = run_live(s);
  EXPECT_EQ(ran.report.verdict, "ok") << ran.report.check.to_text();
  EXPECT_EQ(verdict(ran.report, "mutual_exclusion"), "ok");
  EXPECT_FALSE(ran.version.empty());
  EXPECT_NE(ran.report.history.find("\"live\": true"), std::string::npos);
  EXPECT_NE(ran.report.history.find("\"replayable\": false"), std::string::npos);
  EXPECT_NE(ran.report.history.find("\"redis_version\": \"" + ran.version + "\""), std::string::npos);
  EXPECT_GE(ran.report.stats.ops, 20u);  // every thread took the lock several times
  EXPECT_NE(ran.report.replay.find("--live"), std::string::npos);
}

// A restart without persistence forgets the lock, and a second client takes it while the first
// still holds it; with appendfsync always the restart keeps it. What survives is what Redis kept.
std::string restart_scenario(const std::string& persistence) {
  return R"({
    "name": "live-restart", "duration_ms": 2500,
    "algorithm": {"name": "redisson-lock"},
    "nodes": {"default": {"persistence": {"mode": ")" + persistence + R"("}}},
    "clients": {"count": 2},
    "workload": {"script": [
      {"threads": "c1/t0", "steps": [{"op": "lock", "lock": "L", "lease_ms": 10000, "then": [{"op": "hold", "ms": 2000}, {"op": "unlock", "lock": "L"}]}]},
      {"threads": "c2/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 10000, "at_ms": 1000}]}]},
    "faults": {"schedule": [{"kind": "crash", "target": "node0", "at_ms": 400, "restart_after_ms": 100}]},
    "checks": {"properties": ["mutual_exclusion"]}})";
}

TEST(LiveRunTest, RestartWithoutPersistenceLosesTheLock) {
  const Ran ran = run_live(parse(restart_scenario("none")));
  EXPECT_EQ(verdict(ran.report, "mutual_exclusion"), "violation") << ran.report.history;
  EXPECT_NE(ran.report.history.find("\"type\": \"data_loss\""), std::string::npos);
  EXPECT_NE(ran.report.history.find("\"event\": \"restarted\""), std::string::npos);
}

TEST(LiveRunTest, RestartWithAofAlwaysKeepsTheLock) {
  const Ran ran = run_live(parse(restart_scenario("aof-always")));
  EXPECT_EQ(verdict(ran.report, "mutual_exclusion"), "ok") << ran.report.history;
  EXPECT_EQ(ran.report.history.find("\"type\": \"data_loss\""), std::string::npos);
}

// A paused node answers nothing: the client's command times out after its timeout and the
// acquisition's outcome is unknown; the lock it may have taken expires by its lease.
TEST(LiveRunTest, PausedNodeTimesTheCommandOut) {
  const Ran ran = run_live(parse(R"({
    "name": "live-pause", "duration_ms": 1500,
    "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 1, "options": {"timeout_ms": 300, "retry_attempts": 0}},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 500, "at_ms": 200}]}]},
    "faults": {"schedule": [{"kind": "pause", "target": "node0", "at_ms": 100, "duration_ms": 800}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  const std::string& h = ran.report.history;
  EXPECT_NE(h.find("\"outcome\": \"unknown\""), std::string::npos) << h;
  EXPECT_NE(h.find("\"kind\": \"pause\""), std::string::npos) << h;
}

// A partition between the client and the node: the command never reaches the node (no exec
// event) and times out after the client's timeout, with an unknown outcome.
TEST(LiveRunTest, PartitionTimesTheCommandOutAfterTheClientsTimeout) {
  const Ran ran = run_live(parse(R"({
    "name": "live-partition", "duration_ms": 1500,
    "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 1, "options": {"timeout_ms": 400, "retry_attempts": 0}},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 500, "at_ms": 200}]}]},
    "faults": {"schedule": [{"kind": "partition", "groups": [["c1"], ["node0"]], "at_ms": 100, "duration_ms": 1000}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  const std::string& h = ran.report.history;
  EXPECT_NE(h.find("\"outcome\": \"unknown\""), std::string::npos) << h;
  EXPECT_EQ(h.find("\"type\": \"exec\""), std::string::npos) << h;
  // The timeout comes after the client's 400 ms: the completion is at least 600 ms into the run.
  const size_t complete = h.find("\"type\": \"complete\"");
  ASSERT_NE(complete, std::string::npos);
  const size_t t = h.rfind("{\"t\": ", complete);
  EXPECT_GE(std::stoll(h.substr(t + 6)), 600'000) << h;
}

// A lost reply: the node ran the command (its exec event is there, and the key is set), the
// client never learns it.
TEST(LiveRunTest, LostReplyAfterTheNodeRanTheCommand) {
  const Ran ran = run_live(parse(R"({
    "name": "live-lose-reply", "duration_ms": 1200,
    "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 1, "options": {"timeout_ms": 300, "retry_attempts": 0}},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 5000, "at_ms": 100}]}]},
    "faults": {"schedule": [{"kind": "lose_reply", "target": "c1", "match": "SET", "replies": 1, "at_ms": 0}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  const std::string& h = ran.report.history;
  EXPECT_NE(h.find("\"outcome\": \"unknown\""), std::string::npos) << h;
  EXPECT_NE(h.find("\"command\": \"SET\""), std::string::npos) << h;
  EXPECT_NE(h.find("\"reply\": {\"ok\": \"OK\"}"), std::string::npos) << h;
}

// The true time of the first event of `type` in a history.
int64_t first_t(const std::string& h, const std::string& type) {
  const size_t at = h.find("\"type\": \"" + type + "\"");
  if (at == std::string::npos) return -1;
  const size_t t = h.rfind("{\"t\": ", at);
  return std::stoll(h.substr(t + 6));
}

// A client's clock jumps forward 1 s at true 0.2 s: its step timed at local 1.5 s, waiting
// since the start, is re-timed and runs at true 0.5 s, as in simulation.
TEST(LiveRunTest, ClientClockJumpRetimesItsWaits) {
  const Ran ran = run_live(parse(R"({
    "name": "live-client-clock", "duration_ms": 2000,
    "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 1},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 500, "at_ms": 1500}]}]},
    "faults": {"schedule": [{"kind": "clock_jump", "target": "c1", "at_ms": 200, "delta_ms": 1000}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  const std::string& h = ran.report.history;
  EXPECT_NE(h.find("\"kind\": \"clock_jump\", \"target\": \"c1\""), std::string::npos) << h;
  const int64_t invoked = first_t(h, "invoke");
  EXPECT_GE(invoked, 480'000) << h;
  EXPECT_LT(invoked, 1'000'000) << h;
}

// A client's clock set 1 s back at true 0.2 s for 1 s: its step at local 0.8 s is re-timed to
// true 1.8 s, and when the offset ends at true 1.2 s the clock steps forward by the second it
// lost (local 1.2 s), past the step's time: it runs then. Not re-timed it would run at 0.8 s;
// never undone, at 1.8 s.
TEST(LiveRunTest, ClientClockOffsetIsUndoneAtItsEnd) {
  const Ran ran = run_live(parse(R"({
    "name": "live-client-offset", "duration_ms": 2000,
    "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 1},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 500, "at_ms": 800}]}]},
    "faults": {"schedule": [{"kind": "clock_offset", "target": "c1", "at_ms": 200, "offset_ms": -1000, "duration_ms": 1000}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  const std::string& h = ran.report.history;
  const int64_t invoked = first_t(h, "invoke");
  EXPECT_GE(invoked, 1'180'000) << h;
  EXPECT_LT(invoked, 1'600'000) << h;
}

// A slow link (network.links): the request crosses it 300 ms later, on top of the loopback's own
// latency; the reply comes back at once. A default loss rate of 100% loses everything.
TEST(LiveRunTest, LinkSettingsHoldForTheWholeRun) {
  const Ran slow = run_live(parse(R"({
    "name": "live-slow-link", "duration_ms": 1200,
    "algorithm": {"name": "set-nx-px"},
    "network": {"links": [{"from": "c1", "to": "node0", "latency": 300000, "both_ways": false}]},
    "clients": {"count": 1},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 500, "at_ms": 100}]}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  const std::string& h = slow.report.history;
  EXPECT_GE(first_t(h, "exec"), 400'000) << h;
  EXPECT_LT(first_t(h, "complete") - first_t(h, "exec"), 100'000) << h;
  const Ran lossy = run_live(parse(R"({
    "name": "live-lossy", "duration_ms": 1200,
    "algorithm": {"name": "set-nx-px"},
    "network": {"loss_ppm": 1000000},
    "clients": {"count": 1, "options": {"timeout_ms": 300, "retry_attempts": 0}},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 500, "at_ms": 100}]}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  EXPECT_EQ(first_t(lossy.report.history, "exec"), -1) << lossy.report.history;
  EXPECT_NE(lossy.report.history.find("\"outcome\": \"unknown\""), std::string::npos) << lossy.report.history;
}

// A reply delayed on the link holds back the replies behind it on the same connection, as TCP
// (and the simulator) would: t1's reply, sent after the delay window ended, still arrives after
// t0's delayed one.
TEST(LiveRunTest, ADelayedReplyHoldsBackTheOnesBehindIt) {
  const Ran ran = run_live(parse(R"({
    "name": "live-fifo", "duration_ms": 1200,
    "algorithm": {"name": "set-nx-px"},
    "clients": {"count": 1, "threads": 2},
    "workload": {"script": [
      {"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 0, "lease_ms": 5000, "at_ms": 100}]},
      {"threads": "c1/t1", "steps": [{"op": "try_lock", "lock": "M", "wait_ms": 0, "lease_ms": 5000, "at_ms": 200}]}]},
    "faults": {"schedule": [{"kind": "delay", "target": {"from": "node0", "to": "c1"}, "at_ms": 50, "extra_ms": 300, "duration_ms": 100}]},
    "checks": {"properties": ["mutual_exclusion"]}})"));
  const std::string& h = ran.report.history;
  const size_t first = h.find("\"type\": \"complete\", \"id\": 1,");
  const size_t second = h.find("\"type\": \"complete\", \"id\": 2,");
  ASSERT_NE(first, std::string::npos) << h;
  ASSERT_NE(second, std::string::npos) << h;
  const int64_t t1 = std::stoll(h.substr(h.rfind("{\"t\": ", first) + 6));
  const int64_t t2 = std::stoll(h.substr(h.rfind("{\"t\": ", second) + 6));
  EXPECT_GE(t1, 400'000) << h;
  EXPECT_GE(t2, t1) << h;
}

TEST(LiveRunTest, RefusesWhatCannotBeMadeReal) {
  scenario::Scenario s = parse(R"({
    "name": "live-refused", "duration_ms": 1000,
    "algorithm": {"name": "redisson-lock"},
    "clients": {"count": 1},
    "workload": {"script": [{"threads": "c1/t0", "steps": [{"op": "try_lock", "lock": "L", "wait_ms": 500}]}]}})");
  s.mutant = "rlock_unlock_no_owner_check";  // as `run --mutant` sets it
  const Status st = LiveRun::supported(s, 1);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("live-test.json"), std::string::npos) << st.message();
  EXPECT_NE(st.message().find("a mutant run"), std::string::npos) << st.message();
  LiveRun live;
  scenario::RunOptions o;
  o.source = &live;
  EXPECT_FALSE(scenario::run_scenario(s, o).ok());
}

}  // namespace
}  // namespace lockstep::live
