// ExecColumn (history.h): every run reads back exactly as pushed, whatever its values; shapes and
// key lists that repeat are stored once.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "checker/check.h"
#include "checker/history.h"
#include "checker/history_parse.h"
#include "checker/testing/history_gen.h"

namespace lockstep::checker {
namespace {

Exec run(TimeUs t, int64_t seq, int64_t op_id, int64_t local_ms) {
  Exec e;
  e.t = t;
  e.node = 1;
  e.conn = 2;
  e.command = 3;
  e.script = 4;
  e.seq = seq;
  e.op_id = op_id;
  e.local_ms = local_ms;
  e.keys_begin = 7;
  e.keys_count = 2;
  e.reply = ReplyKind::kInt;
  e.reply_int = -5;
  e.line = 12;
  return e;
}

// Each 32-bit field at and beyond the edges of what it holds, and the absent markers.
TEST(ExecColumn, ValuesBeyondThirtyTwoBitsReadBackExactly) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const std::vector<Exec> runs = {
      run(0, 0, 0, 0),
      run(1'500'000, 1, 1, 1),
      // The node-local time is kept as an offset from t / 1000 (here 1,500 and 2,000 ms).
      run(1'500'000, UINT32_MAX - 2, UINT32_MAX - 3, 1'500 + int64_t{INT32_MAX}),
      run(2'000'000, UINT32_MAX - 1, UINT32_MAX - 2, 2'000 + int64_t{INT32_MAX} + 1),
      run(2'000'000, UINT32_MAX, UINT32_MAX - 1, 2'000 + int64_t{INT32_MIN} + 2),
      run(2'000'000, int64_t{1} << 40, UINT32_MAX, 2'000 + int64_t{INT32_MIN} + 1),
      run(3'000'000, -1, -1, kAbsent),
      run(-7'000, kMin, kAbsent, -7 + int64_t{INT32_MIN}),
      run(kMax, kMax, kMax, kMax),
      run(kMin, kMin + 1, kMin + 2, kMin + 3),
      run(4'000'000, 5, 6, kMin + 1),
  };
  // Packed from the first run, from the fourth (the first three are copied over when it packs),
  // and never (plain records).
  for (const size_t pack_after : {size_t{0}, size_t{3}, ExecColumn::kPackAfter}) {
    SCOPED_TRACE(pack_after);
    ExecColumn column(pack_after);
    for (const Exec& e : runs) column.push_back(e);
    ASSERT_EQ(column.size(), runs.size());
    EXPECT_EQ(column.packed(), pack_after < runs.size());
    for (size_t i = 0; i < runs.size(); ++i) {
      SCOPED_TRACE(i);
      EXPECT_TRUE(column[i] == runs[i]);
    }
    size_t i = 0;
    for (const Exec& e : column) EXPECT_TRUE(e == runs[i++]) << i - 1;
    EXPECT_EQ(i, runs.size());
  }
}

TEST(ExecColumn, RepeatedShapesAreStoredOnce) {
  const size_t n = ExecColumn::kPackAfter + 3 * 16'384 + 11;  // past the plain records, across blocks
  ExecColumn column;
  for (size_t i = 0; i < n; ++i) {
    Exec e = run(static_cast<TimeUs>(i) * 100, static_cast<int64_t>(i), static_cast<int64_t>(i / 3), static_cast<int64_t>(i) / 10);
    e.conn = static_cast<Sym>(10 + i % 3);
    e.reply = i % 2 == 0 ? ReplyKind::kNil : ReplyKind::kInt;
    column.push_back(e);
  }
  ASSERT_TRUE(column.packed());
  EXPECT_EQ(column.shapes(), 6u);  // 3 connections × 2 reply kinds
  for (size_t i : {size_t{0}, ExecColumn::kPackAfter - 1, ExecColumn::kPackAfter, ExecColumn::kPackAfter + 16'384, n - 1}) {
    const Exec e = column[i];
    EXPECT_EQ(e.conn, static_cast<Sym>(10 + i % 3));
    EXPECT_EQ(e.seq, static_cast<int64_t>(i));
    EXPECT_EQ(e.op_id, static_cast<int64_t>(i / 3));
    EXPECT_EQ(e.local_ms, static_cast<int64_t>(i) / 10);
  }
}

RC_GTEST_PROP(ExecColumn, EveryRunReadsBackAsPushed, ()) {
  const auto count = *rc::gen::inRange<size_t>(1, 200);
  // Values near the edges of 32 bits as often as anywhere else.
  const auto any = rc::gen::oneOf(rc::gen::arbitrary<int64_t>(), rc::gen::inRange<int64_t>(-3, 3),
                                  rc::gen::inRange<int64_t>(INT32_MIN - int64_t{3}, INT32_MIN + int64_t{3}),
                                  rc::gen::inRange<int64_t>(INT32_MAX - int64_t{3}, INT32_MAX + int64_t{3}),
                                  rc::gen::inRange<int64_t>(UINT32_MAX - int64_t{3}, UINT32_MAX + int64_t{3}),
                                  rc::gen::just(kAbsent));
  std::vector<Exec> runs;
  ExecColumn column(*rc::gen::inRange<size_t>(0, 200));
  for (size_t i = 0; i < count; ++i) {
    Exec e;
    e.t = *any;
    e.node = *rc::gen::inRange<Sym>(0, 4);
    e.conn = *rc::gen::inRange<Sym>(0, 4);
    e.command = *rc::gen::inRange<Sym>(0, 3);
    e.script = *rc::gen::inRange<Sym>(0, 3);
    e.seq = *any;
    e.local_ms = *any;
    e.op_id = *any;
    e.keys_begin = *rc::gen::arbitrary<uint32_t>();
    e.keys_count = *rc::gen::inRange<uint32_t>(0, 3);
    e.reply_int = *any;
    e.line = *rc::gen::arbitrary<uint32_t>();
    e.reply = static_cast<ReplyKind>(*rc::gen::inRange<int>(0, 8));
    runs.push_back(e);
    column.push_back(e);
  }
  RC_ASSERT(column.size() == runs.size());
  for (size_t i = 0; i < runs.size(); ++i) RC_ASSERT(column[i] == runs[i]);
}

// Past the plain records, the reader stores a run's key list once when recent runs had the same
// list, and every run still names its own keys.
TEST(ExecColumn, ARunsKeysAreSharedWithEarlierRunsOfTheSameList) {
  std::string text = R"({"lockstep_history": 1, "algorithm": "redisson-lock", "lock_kind": "reentrant", "nodes": ["n0"]})" "\n";
  const std::vector<std::string> lists = {R"(["A"])", R"(["B", "chan:{B}"])", R"(["A", "chan:{A}"])", R"(["B"])"};
  const size_t runs = ExecColumn::kPackAfter + 400;
  for (size_t i = 0; i < runs; ++i) {
    text += R"({"t": )" + std::to_string(i * 10) + R"(, "type": "exec", "node": "n0", "seq": )" + std::to_string(i + 1) +
            R"(, "conn": "c1", "command": "EVALSHA", "script": "s", "keys": )" + lists[i % 4] + R"(, "reply": null})" "\n";
  }
  text += R"({"t": )" + std::to_string(runs * 10) + R"(, "type": "exec", "node": "n0", "seq": )" + std::to_string(runs + 1) +
          R"(, "conn": "c1", "command": "SET", "args": ["A", "v", "NX"], "reply": "OK"})" "\n";
  Result<History> h = parse_history_text(text);
  ASSERT_TRUE(h.ok()) << h.status().message();
  const History& history = h.value();
  ASSERT_EQ(history.execs.size(), runs + 1);
  ASSERT_TRUE(history.execs.packed());
  // The plain runs' keys are all in the pool (6 per 4 runs), then the run that packed the column
  // (its list: "A"), then each list once more before the table of recent lists knows it.
  const size_t plain_keys = ExecColumn::kPackAfter / 4 * 6;
  EXPECT_EQ(history.key_pool.size(), plain_keys + 1 + 6);  // without sharing: + 601
  auto keys_of = [&](const Exec& e) {
    std::string out;
    for (uint32_t k = 0; k < e.keys_count; ++k) out += std::string(history.str(history.key_pool[e.keys_begin + k])) + " ";
    return out;
  };
  const std::vector<std::string> expected = {"A ", "B chan:{B} ", "A chan:{A} ", "B "};
  for (size_t i = 0; i < runs; ++i) ASSERT_EQ(keys_of(history.execs[i]), expected[i % 4]) << i;
  EXPECT_EQ(keys_of(history.execs[runs]), "A ");  // a plain command's key is its first argument
}

// Every property reads the same verdicts and explanations from packed runs as from plain ones:
// each example history, and generated histories of every kind, checked as read and again with
// their runs packed from the first.
void expect_same_verdicts(std::function<Result<History>()> read) {
  Result<History> plain = read();
  Result<History> packed = read();
  ASSERT_TRUE(plain.ok() && packed.ok());
  ASSERT_FALSE(plain.value().execs.packed());
  ExecColumn runs(0);
  for (const Exec& e : packed.value().execs) runs.push_back(e);
  packed.value().execs = std::move(runs);
  ASSERT_TRUE(packed.value().execs.packed() || plain.value().execs.empty());
  EXPECT_EQ(check_history(packed.value()).to_json().dump(1), check_history(plain.value()).to_json().dump(1));
}

TEST(ExecColumn, PackedRunsGiveTheSameVerdictsOnTheExampleHistories) {
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LOCKSTEP_CHECKER_TESTDATA)) {
    if (entry.path().extension() != ".jsonl") continue;
    const std::string path = entry.path().string();
    if (!parse_history_file(path).ok()) continue;  // the malformed example
    SCOPED_TRACE(entry.path().filename().string());
    expect_same_verdicts([&] { return parse_history_file(path); });
    ++checked;
  }
  EXPECT_GE(checked, 12);
}

TEST(ExecColumn, PackedRunsGiveTheSameVerdictsOnGeneratedHistories) {
  using testing::Inject;
  int violations = 0;  // injected faults found: their explanations were compared too
  for (const LockKind kind : {LockKind::kReentrant, LockKind::kRwlock, LockKind::kSimple, LockKind::kRedlock}) {
    for (const Inject inject : {Inject::kNone, Inject::kOverlap, Inject::kEarlyLapse, Inject::kStuckLock,
                                Inject::kQuorumShortfall}) {
      if ((inject == Inject::kQuorumShortfall) != (kind == LockKind::kRedlock) && inject != Inject::kNone) continue;
      testing::GenOptions o;
      o.inject = inject;
      o.kind = kind;
      o.redlock = kind == LockKind::kRedlock;
      o.nodes = o.redlock ? 3 : 1;
      o.threads = 8;
      o.locks = 2;
      o.ops = 400;
      o.unknown_ppm = 50000;
      o.try_lock_ppm = 300000;
      const std::string text = testing::generate_history(o, 7);
      Result<History> h = parse_history_text(text);
      ASSERT_TRUE(h.ok()) << h.status().message();
      SCOPED_TRACE(std::string(lock_kind_name(kind)) + " " + testing::inject_name(inject));
      ASSERT_FALSE(h.value().execs.empty());
      expect_same_verdicts([&] { return parse_history_text(text); });
      if (inject != Inject::kNone && check_history(h.value()).exit_code() == 1) ++violations;
    }
  }
  EXPECT_GE(violations, 8);
}

}  // namespace
}  // namespace lockstep::checker
