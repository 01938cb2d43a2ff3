// The reader on two threads (ReadOptions::threads >= 2: one parses lines, the other builds the
// records) against the reader on one: the same records, line numbers and verdicts, the same first
// error, and an early error ends the reading thread without reading the rest.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "checker/check.h"
#include "checker/testing/history_gen.h"

namespace lockstep::checker {
namespace {

const ReadOptions kTwoThreads{.threads = 2};

// Every record of `h` as JSON, names spelled out, so two readings can be compared whole.
nlohmann::json records(const History& h) {
  auto s = [&](Sym sym) { return sym == kNoSym ? std::string("-") : std::string(h.str(sym)); };
  nlohmann::json j;
  j["lines"] = h.lines;
  j["complete"] = h.complete;
  j["end_t"] = h.end_t;
  j["symbols"] = h.syms.size();
  j["publish"] = h.publish_events;
  j["deliver"] = h.deliver_events;
  for (const Operation& o : h.ops) {
    j["ops"].push_back({o.id, o.invoke_t, o.complete_t, s(o.thread), s(o.owner), s(o.lock), s(o.error),
                        static_cast<int>(o.kind), static_cast<int>(o.mode), static_cast<int>(o.outcome), o.completed,
                        static_cast<int>(o.acquired), static_cast<int>(o.released), static_cast<int>(o.renewed), o.count,
                        o.token, o.lease_ms, o.watchdog_ms, o.wait_ms, o.validity_ms, o.invoke_line, o.complete_line});
  }
  for (const Hold& x : h.holds) {
    j["holds"].push_back({s(x.thread), s(x.owner), s(x.lock), s(x.end_reason), static_cast<int>(x.mode), x.op_id,
                          x.token, x.begin_t, x.end_t, x.begin_line, x.end_line});
  }
  for (const Write& w : h.writes) {
    j["writes"].push_back({w.t, s(w.thread), s(w.owner), s(w.lock), s(w.resource), w.token, w.fenced, w.accepted, w.line});
  }
  for (const Exec& e : h.execs) {
    j["execs"].push_back({e.t, s(e.node), s(e.conn), s(e.command), s(e.script), e.seq, e.local_ms, e.op_id,
                          e.keys_begin, e.keys_count, e.reply_int, e.line, static_cast<int>(e.reply)});
  }
  for (const Expire& e : h.expires) j["expires"].push_back({e.t, s(e.node), s(e.key), e.local_ms, e.line});
  for (const Blocked& b : h.blocked) j["blocked"].push_back({b.t, s(b.node), s(b.conn), s(b.command), b.op_id, b.line});
  for (const DataLoss& d : h.data_losses) {
    j["losses"].push_back({d.t, s(d.node), s(d.reason), d.keys_begin, d.keys_count, d.line});
  }
  for (const StateRecord& r : h.states) {
    nlohmann::json members = nlohmann::json::array(), values = nlohmann::json::array();
    for (Sym m : r.members) members.push_back(s(m));
    for (Sym v : r.values) values.push_back(s(v));
    j["states"].push_back({r.t, s(r.node), s(r.key), s(r.type), r.seq, members, values, r.expire_at_ms, r.line});
  }
  for (const NodeEvent& n : h.node_events) j["nodes"].push_back({n.t, s(n.node), s(n.event), n.line});
  for (const FaultEvent& f : h.faults) {
    nlohmann::json params = nlohmann::json::array();
    for (const auto& [k, v] : f.params) params.push_back({s(k), v});
    j["faults"].push_back({f.t, f.fault, s(f.kind), s(f.target), static_cast<int>(f.phase), params, f.line});
  }
  for (Sym k : h.key_pool) j["key_pool"].push_back(s(k));
  return j;
}

// Reads `text` on one thread and on two; both must agree: records and verdicts, or the error.
void expect_same_reading(const std::string& text) {
  Result<History> one = parse_history_text(text, "h.jsonl");
  Result<History> two = parse_history_text(text, "h.jsonl", kTwoThreads);
  ASSERT_EQ(one.ok(), two.ok()) << (one.ok() ? two.status().message() : one.status().message());
  if (!one.ok()) {
    EXPECT_EQ(two.status().message(), one.status().message());
    return;
  }
  EXPECT_EQ(records(two.value()).dump(), records(one.value()).dump());
  EXPECT_EQ(check_history(two.value()).to_json().dump(1), check_history(one.value()).to_json().dump(1));
}

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(ReaderThreads, TheExampleHistoriesReadTheSame) {
  int read = 0;
  for (const auto& entry : std::filesystem::directory_iterator(LOCKSTEP_CHECKER_TESTDATA)) {
    if (entry.path().extension() != ".jsonl") continue;
    SCOPED_TRACE(entry.path().filename().string());
    expect_same_reading(file_text(entry.path()));
    ++read;
  }
  EXPECT_GE(read, 14);
}

// Histories of many batches (a batch is 1,024 lines), with unknown outcomes, tokens, RedLock
// validities and injected violations, whose explanations are compared too.
TEST(ReaderThreads, GeneratedHistoriesReadTheSame) {
  using testing::Inject;
  for (const LockKind kind : {LockKind::kReentrant, LockKind::kRwlock, LockKind::kSimple, LockKind::kRedlock}) {
    for (const Inject inject : {Inject::kNone, Inject::kOverlap, Inject::kEarlyLapse}) {
      testing::GenOptions o;
      o.inject = inject;
      o.kind = kind;
      o.redlock = kind == LockKind::kRedlock;
      o.nodes = o.redlock ? 3 : 1;
      o.fenced = kind == LockKind::kSimple;
      o.threads = 16;
      o.locks = 3;
      o.ops = 2000;
      o.unknown_ppm = 50000;
      o.try_lock_ppm = 300000;
      SCOPED_TRACE(std::string(lock_kind_name(kind)) + " " + testing::inject_name(inject));
      const std::string text = testing::generate_history(o, 11);
      ASSERT_GT(std::count(text.begin(), text.end(), '\n'), 4 * 1024);
      expect_same_reading(text);
    }
  }
}

// A file that ends inside its last line (a run killed while writing, a full disk) is a history
// cut short: that line is left out and named (History::cut_line), the history has no footer, so
// it is incomplete, on one thread or two. The same bad line followed by a newline, or anywhere
// but at the end, stays an error naming it.
TEST(ReaderThreads, ALastLineCutShortIsLeftOutAndNamed) {
  testing::GenOptions o;
  o.threads = 16;
  o.locks = 3;
  o.ops = 3000;
  const std::string whole = testing::generate_history(o, 5);
  const size_t cut_at = whole.size() / 2;
  ASSERT_NE(whole[cut_at], '\n');
  const std::string cut = whole.substr(0, cut_at);
  const uint32_t cut_line = static_cast<uint32_t>(std::count(cut.begin(), cut.end(), '\n')) + 1;
  for (const ReadOptions& options : {ReadOptions{}, kTwoThreads}) {
    SCOPED_TRACE(options.threads);
    Result<History> h = parse_history_text(cut, "cut.jsonl", options);
    ASSERT_TRUE(h.ok()) << h.status().message();
    EXPECT_EQ(h.value().cut_line, cut_line);
    EXPECT_FALSE(h.value().complete);
    EXPECT_EQ(h.value().lines, cut_line);
    // What came before the cut reads as it does from a file that ends at that line's start.
    Result<History> before = parse_history_text(whole.substr(0, cut.rfind('\n') + 1), "cut.jsonl", options);
    ASSERT_TRUE(before.ok()) << before.status().message();
    EXPECT_EQ(before.value().cut_line, 0u);
    EXPECT_EQ(records(h.value())["ops"], records(before.value())["ops"]);
    EXPECT_EQ(records(h.value())["holds"], records(before.value())["holds"]);
    for (const std::string& bad : {cut + "\n", cut + "\n" + whole.substr(cut.rfind('\n') + 1)}) {
      Result<History> e = parse_history_text(bad, "cut.jsonl", options);
      ASSERT_FALSE(e.ok());
      EXPECT_EQ(e.status().message().rfind("cut.jsonl:" + std::to_string(cut_line) + ": ", 0), 0u) << e.status().message();
    }
    // A whole history whose last line merely lacks its newline is no cut.
    Result<History> unterminated = parse_history_text(whole.substr(0, whole.size() - 1), "cut.jsonl", options);
    ASSERT_TRUE(unterminated.ok()) << unterminated.status().message();
    EXPECT_EQ(unterminated.value().cut_line, 0u);
    EXPECT_TRUE(unterminated.value().complete);
  }
}

// Every kind of line and field the batches carry between the threads, escapes and empty strings
// included, around a batch boundary.
TEST(ReaderThreads, EveryFieldCrossesBetweenTheThreads) {
  std::string text = R"({"lockstep_history": 1, "lock_kind": "reentrant", "nodes": ["n0", "n1"]})" "\n";
  for (int i = 0; i < 1020; ++i) text += R"({"t": 1, "type": "node", "node": "n0", "event": "tick"})" "\n";
  text += "\n  \n";  // blank lines count
  text += R"({"t": 2, "type": "invoke", "id": 1, "thread": "c\"1/t0", "owner": "", "lock": "L\u00e9", "op": "lock", "lease_ms": null, "wait_ms": 500, "watchdog_ms": 9000, "validity_ms": 7})" "\n";
  text += R"({"t": 3, "type": "exec", "node": "n0", "seq": 1, "local_ms": 4, "conn": "k1", "command": "EVAL", "script": "s1", "keys": ["L\u00e9", ""], "args": ["a", 2], "op": 1, "reply": [-1, 7]})" "\n";
  text += R"({"t": 3, "type": "exec", "node": "n1", "seq": 1, "command": "EVALSHA", "script": "s1", "reply": {"err": "NOSCRIPT No matching script"}})" "\n";
  text += R"({"t": 3, "type": "exec", "node": "n1", "seq": 2, "command": "SET", "args": ["K", "v"], "reply": {"ok": "OK"}})" "\n";
  text += R"({"t": 3, "type": "exec", "node": "n1", "seq": 3, "conn": "k1", "command": "BLPOP", "op": 1, "args": ["S", "0"], "blocked": true})" "\n";
  text += R"({"t": 4, "type": "complete", "id": 1, "outcome": "ok", "acquired": true, "count": 1, "token": 7})" "\n";
  text += R"({"t": 4, "type": "hold_begin", "thread": "c\"1/t0", "lock": "L\u00e9", "op": 1, "token": 7})" "\n";
  text += R"({"t": 5, "type": "state", "node": "n0", "seq": 1, "key": "L\u00e9", "value": {"type": "hash", "strings": ["o", "1"], "expire_at_ms": 99}})" "\n";
  text += R"({"t": 5, "type": "state", "node": "n0", "seq": 2, "key": "Q", "value": {"type": "zset", "members": [["a", 1.5], ["b", 2]]}})" "\n";
  text += R"({"t": 5, "type": "state", "node": "n0", "seq": 3, "key": "H", "value": {"type": "hash", "fields": {"f": "x", "g": 3}}})" "\n";
  text += R"({"t": 5, "type": "state", "node": "n0", "seq": 4, "key": "Z", "value": null})" "\n";
  text += R"({"t": 6, "type": "write", "thread": "c\"1/t0", "lock": "L\u00e9", "resource": "db", "token": 7, "fenced": true, "accepted": false})" "\n";
  text += R"({"t": 6, "type": "publish", "node": "n0", "channel": "ch", "message": 0, "receivers": 1})" "\n";
  text += R"({"t": 6, "type": "deliver", "thread": "c\"1/t0", "channel": "ch", "message": "m"})" "\n";
  text += R"({"t": 7, "type": "fault", "fault": 1, "kind": "clock_jump", "target": "n1", "phase": "instant", "params": {"jump_ms": -5, "note": "x"}})" "\n";
  text += R"({"t": 8, "type": "expire", "node": "n1", "key": "K", "local_ms": 3})" "\n";
  text += R"({"t": 8, "type": "data_loss", "node": "n1", "reason": "restart", "keys": ["K"]})" "\n";
  text += R"({"t": 9, "type": "hold_end", "thread": "c\"1/t0", "lock": "L\u00e9", "reason": "unlock"})" "\n";
  text += R"({"t": 9, "type": "invoke", "id": 2, "thread": "c\"1/t0", "lock": "L\u00e9", "op": "unlock", "mode": "read"})" "\n";
  text += R"({"t": 10, "type": "complete", "id": 2, "outcome": "fail", "released": false, "renewed": true, "error": "e\n"})" "\n";
  text += R"({"t": 11, "type": "end", "complete": true})" "\r\n";
  Result<History> one = parse_history_text(text, "h.jsonl");
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_EQ(one.value().states.size(), 4u);
  ASSERT_EQ(one.value().execs.size(), 3u);
  ASSERT_EQ(one.value().blocked.size(), 1u);
  expect_same_reading(text);
}

// A command that blocked its connection (a BLPOP with nothing to pop) is recorded when it blocks,
// with "blocked": true and no reply: kept apart from the commands that ran (it has had no effect,
// and its answer, if it comes, is an exec of its own). With a reply as well it is refused.
TEST(HistoryReader, ABlockedCommandIsKeptApartFromTheExecs) {
  const std::string head = R"({"lockstep_history": 1, "lock_kind": "simple", "nodes": ["n0"]})" "\n"
                           R"({"t": 1, "type": "invoke", "id": 1, "thread": "A", "lock": "L", "op": "lock", "lease_ms": null})" "\n";
  const std::string blocked = R"({"t": 2, "type": "exec", "node": "n0", "seq": 1, "conn": "a", "command": "BLPOP", "op": 1, "args": ["S", "0"], "blocked": true})" "\n";
  const std::string answer = R"({"t": 3, "type": "exec", "node": "n0", "seq": 2, "conn": "a", "command": "BLPOP", "op": 1, "args": ["S", "0"], "reply": ["S", "1"]})" "\n";
  Result<History> h = parse_history_text(head + blocked + answer, "h.jsonl");
  ASSERT_TRUE(h.ok()) << h.status().message();
  ASSERT_EQ(h.value().blocked.size(), 1u);
  EXPECT_EQ(h.value().blocked[0].t, 2);
  EXPECT_EQ(h.value().blocked[0].op_id, 1);
  EXPECT_EQ(h.value().str(h.value().blocked[0].command), "BLPOP");
  EXPECT_EQ(h.value().blocked[0].line, 3u);
  ASSERT_EQ(h.value().execs.size(), 1u);
  EXPECT_EQ(h.value().execs[0].t, 3);
  expect_same_reading(head + blocked + answer);
  // "blocked": false is an ordinary exec.
  std::string unblocked = head + answer;
  unblocked.insert(unblocked.rfind(", \"reply\""), ", \"blocked\": false");
  Result<History> plain = parse_history_text(unblocked, "h.jsonl");
  ASSERT_TRUE(plain.ok()) << plain.status().message();
  EXPECT_EQ(plain.value().execs.size(), 1u);
  EXPECT_TRUE(plain.value().blocked.empty());
  std::string both = blocked;
  both.insert(both.rfind('}'), R"(, "reply": null)");
  Result<History> refused = parse_history_text(head + both, "h.jsonl");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("h.jsonl:3"), std::string::npos) << refused.status().message();
  EXPECT_NE(refused.status().message().find("\"blocked\": true has no reply"), std::string::npos) << refused.status().message();
}

// The first error in line order is the one reported, whichever thread finds it: a line that does
// not parse (the reading thread) or an event that does not fit (the building thread), in the
// first batch, a later one, or the header.
TEST(ReaderThreads, TheFirstErrorIsTheSame) {
  const std::string tick = R"({"t": 1, "type": "node", "node": "n0", "event": "tick"})" "\n";
  auto ticks = [&](size_t n) {
    std::string text;
    for (size_t i = 0; i < n; ++i) text += tick;
    return text;
  };
  const std::string good = ticks(5000);
  const std::string header = R"({"lockstep_history": 1, "lock_kind": "reentrant"})" "\n";
  const std::string not_json = "{\"t\": 2, \"type\": \n";
  const std::string no_invoke = R"({"t": 2, "type": "complete", "id": 9, "outcome": "ok"})" "\n";
  const std::string too_long = R"({"t": 2, "type": "node", "node": "n0", "event": ")" + std::string(kMaxHistoryLineBytes, 'x') + "\"}\n";
  for (const std::string* bad : {&not_json, &no_invoke, &too_long}) {
    for (size_t at : {size_t{0}, size_t{3}, size_t{1023}, size_t{4000}}) {
      const std::string text = header + ticks(at) + *bad + ticks(2000) + no_invoke;
      Result<History> two = parse_history_text(text, "h.jsonl", kTwoThreads);
      ASSERT_FALSE(two.ok());
      EXPECT_TRUE(two.status().message().starts_with("h.jsonl:" + std::to_string(at + 2) + ": ")) << two.status().message();
      expect_same_reading(text);
    }
  }
  // Both kinds one after the other: the earlier one wins.
  expect_same_reading(header + good + no_invoke + not_json);
  expect_same_reading(header + good + not_json + no_invoke);
  expect_same_reading("{\"lockstep_history\": 7}\n" + good);
  expect_same_reading("\n\n");
  expect_same_reading(header + good);  // no footer: parses, incomplete
}

// An error on line 2 of a file of many batches: the building thread reports it and ends the
// reading one, which by then waits for a free batch (a missed wake-up would hang here).
TEST(ReaderThreads, AnEarlyErrorInALargeFileEndsTheReading) {
  const std::string path = ::testing::TempDir() + "/reader-threads-early.jsonl";
  {
    std::ofstream out(path, std::ios::binary);
    out << R"({"lockstep_history": 1, "lock_kind": "reentrant"})" "\n";
    out << R"({"t": 2, "type": "complete", "id": 9, "outcome": "ok"})" "\n";
    const std::string tick = R"({"t": 3, "type": "node", "node": "n0", "event": "tick"})" "\n";
    std::string chunk;
    for (int i = 0; i < 10000; ++i) chunk += tick;
    for (int i = 0; i < 20; ++i) out << chunk;  // 200,000 lines, 200 batches
  }
  Result<History> two = parse_history_file(path, kTwoThreads);
  ASSERT_FALSE(two.ok());
  EXPECT_EQ(two.status().message(), path + ":2: complete: no invoke with id 9 before it");
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace lockstep::checker
