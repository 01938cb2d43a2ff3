#include "sim/history/recorder.h"

#include <gtest/gtest.h>

#include <sstream>

#include <nlohmann/json.hpp>

namespace lockstep::history {
namespace {

std::vector<nlohmann::json> lines(const Writer& w) {
  std::vector<nlohmann::json> out;
  std::istringstream in(w.text());
  std::string line;
  while (std::getline(in, line)) out.push_back(nlohmann::json::parse(line));
  return out;
}

TEST(RecorderTest, OperationsAndHoldsHaveTheDocumentedFields) {
  Writer w;
  Recorder r(&w);
  Invoke inv;
  inv.thread = "c1/t0";
  inv.owner = "u:0";
  inv.lock = "L";
  inv.op = OpKind::kTryLock;
  inv.lease_ms = 10000;
  inv.wait_ms = 10;
  const int64_t id = r.invoke(100, inv);
  Completion c;
  c.acquired = 1;
  c.count = 1;
  r.complete(200, id, c);
  r.hold_begin(200, "c1/t0", "u:0", "L", LockMode::kExclusive, id, kAbsent);
  r.hold_end(300, "c1/t0", "L", HoldEnd::kUnlock);
  auto v = lines(w);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0]["type"], "invoke");
  EXPECT_EQ(v[0]["id"], 1);
  EXPECT_EQ(v[0]["op"], "try_lock");
  EXPECT_EQ(v[0]["mode"], "exclusive");
  EXPECT_EQ(v[0]["wait_ms"], 10);
  EXPECT_FALSE(v[0].contains("watchdog_ms"));
  EXPECT_EQ(v[1]["outcome"], "ok");
  EXPECT_EQ(v[1]["acquired"], true);
  EXPECT_FALSE(v[1].contains("released"));
  EXPECT_EQ(v[2]["type"], "hold_begin");
  EXPECT_FALSE(v[2].contains("token"));
  EXPECT_EQ(v[3]["reason"], "unlock");
  EXPECT_FALSE(v[3].contains("mode"));  // exclusive holds end without a mode
}

// Regression (issue 9): a write→read downgrade ends the write hold first; without a mode on
// hold_end the checker ended the thread's most recent (read) hold and kept the write hold open.
TEST(RecorderTest, HoldEndOfAReadWriteHoldSaysItsMode) {
  Writer w;
  Recorder r(&w);
  r.hold_begin(100, "c1/t0", "u:0", "RW", LockMode::kWrite, 1, kAbsent);
  r.hold_begin(200, "c1/t0", "u:0", "RW", LockMode::kRead, 2, kAbsent);
  r.hold_end(300, "c1/t0", "RW", HoldEnd::kUnlock, LockMode::kWrite);
  r.hold_end(400, "c1/t0", "RW", HoldEnd::kUnlock, LockMode::kRead);
  auto v = lines(w);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[2]["mode"], "write");
  EXPECT_EQ(v[3]["mode"], "read");
}

TEST(RecorderTest, ExecSplitsScriptKeysAndArgsAndConvertsReplies) {
  Writer w;
  Recorder r(&w);
  std::vector<std::string> argv = {"EVALSHA", "abc", "2", "L", "chan", "0", "u:1"};
  redis::Reply reply = redis::Reply::array(
      {redis::Reply::integer_of(1), redis::Reply::nil(), redis::Reply::bulk("x"),
       redis::Reply::status("OK"), redis::Reply::error("ERR bad")});
  Exec e;
  e.node = "node0";
  e.seq = 12;
  e.local_ms = 1401;
  e.conn = "c1";
  e.argv = argv;
  e.script = "unlock";
  e.op = 7;
  e.reply = &reply;
  r.exec(1400, e);
  std::vector<std::string> set = {"set", "L", "tok", "NX", "PX", "30000"};
  redis::Reply ok = redis::Reply::ok();
  Exec e2 = e;
  e2.argv = set;
  e2.script = nullptr;
  e2.op = -1;
  e2.reply = &ok;
  r.exec(1500, e2);
  auto v = lines(w);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0]["command"], "EVALSHA");
  EXPECT_EQ(v[0]["script"], "unlock");
  EXPECT_EQ(v[0]["op"], 7);
  EXPECT_EQ(v[0]["keys"], nlohmann::json({"L", "chan"}));
  EXPECT_EQ(v[0]["args"], nlohmann::json({"0", "u:1"}));
  EXPECT_EQ(v[0]["reply"], nlohmann::json::parse(R"([1, null, "x", {"ok": "OK"}, {"err": "ERR bad"}])"));
  EXPECT_EQ(v[1]["command"], "SET");
  EXPECT_FALSE(v[1].contains("keys"));
  EXPECT_FALSE(v[1].contains("op"));
  EXPECT_EQ(v[1]["args"], nlohmann::json({"L", "tok", "NX", "PX", "30000"}));
}

TEST(RecorderTest, StateFaultAndServerEvents) {
  Writer w;
  Recorder r(&w);
  redis::KeyDump dump;
  dump.type = "list";
  dump.strings = {"u2:1", "u3:1"};
  r.state(10, "node0", 3, "q", dump);
  r.state(10, "node0", 3, "gone", std::nullopt);
  r.fault(20, 1, "pause", "c1", "start", "{\"duration_ms\": 35000}");
  r.fault(30, 1, "pause", "c1", "end", "");
  r.expire(40, "node0", "L", 41);
  std::vector<std::string> keys = {"L"};
  r.data_loss(50, "node0", "restart", keys);
  r.end(60, true);
  auto v = lines(w);
  ASSERT_EQ(v.size(), 7u);
  EXPECT_EQ(v[0]["value"]["strings"], nlohmann::json({"u2:1", "u3:1"}));
  EXPECT_EQ(v[0]["value"]["expire_at_ms"], -1);
  EXPECT_TRUE(v[1]["value"].is_null());
  EXPECT_EQ(v[2]["params"]["duration_ms"], 35000);
  EXPECT_FALSE(v[3].contains("params"));
  EXPECT_EQ(v[5]["keys"], nlohmann::json({"L"}));
  EXPECT_EQ(v[6]["type"], "end");
}

}  // namespace
}  // namespace lockstep::history
