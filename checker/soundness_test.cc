// Soundness of the checkers (RapidCheck): random LEGAL histories of every lock kind pass every
// property; a single injected fault fails the property it breaks (and the ones that necessarily
// break with it), and leaves the others alone.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/check.h"
#include "checker/testing/history_gen.h"

namespace lockstep::checker {
namespace {

using testing::GenOptions;
using testing::Inject;

History parse_or_die(const std::string& text) {
  Result<History> h = parse_history_text(text, "<generated>");
  if (!h.ok()) {
    if (const char* dump = std::getenv("LOCKSTEP_DUMP_FAILED")) std::ofstream(dump) << text;
    RC_FAIL(h.status().message());
  }
  return std::move(h.value());
}

// Options for a random small history of `kind`.
GenOptions random_options(LockKind kind) {
  GenOptions o;
  o.kind = kind;
  o.threads = *rc::gen::inRange(1, 7);
  o.threads_per_client = *rc::gen::inRange(1, 3);
  o.locks = *rc::gen::inRange(1, 3);
  o.ops = *rc::gen::inRange(10, 160);
  o.lease_ms = *rc::gen::element<int64_t>(-1, -1, 500, 5000);
  o.watchdog_ms = *rc::gen::element<int64_t>(300, 3000, 30000);
  o.hold_max_ms = *rc::gen::element<int64_t>(20, 100, 1500);
  o.think_max_ms = *rc::gen::element<int64_t>(5, 100);
  o.net_max_us = *rc::gen::element<int64_t>(200, 2000, 20000);
  o.unknown_ppm = *rc::gen::element<uint32_t>(0, 0, 50000, 200000);
  o.try_lock_ppm = *rc::gen::element<uint32_t>(0, 200000);
  o.reentry_ppm = kind == LockKind::kSimple ? 0 : *rc::gen::element<uint32_t>(0, 300000);
  o.execs = *rc::gen::arbitrary<bool>();
  o.fenced = *rc::gen::arbitrary<bool>();
  return o;
}

std::string describe(const GenOptions& o, uint64_t seed) {
  return "kind=" + std::string(lock_kind_name(o.kind)) + " fair=" + std::to_string(o.fair) +
         " threads=" + std::to_string(o.threads) + "/" + std::to_string(o.threads_per_client) +
         " locks=" + std::to_string(o.locks) + " ops=" + std::to_string(o.ops) +
         " lease=" + std::to_string(o.lease_ms) + " watchdog=" + std::to_string(o.watchdog_ms) +
         " hold_max=" + std::to_string(o.hold_max_ms) + " think_max=" + std::to_string(o.think_max_ms) +
         " net_max=" + std::to_string(o.net_max_us) + " unknown=" + std::to_string(o.unknown_ppm) +
         " try=" + std::to_string(o.try_lock_ppm) + " reentry=" + std::to_string(o.reentry_ppm) +
         " execs=" + std::to_string(o.execs) + " fenced=" + std::to_string(o.fenced) +
         " nodes=" + std::to_string(o.nodes) + " inject=" + testing::inject_name(o.inject) +
         " seed=" + std::to_string(seed) + "\n";
}

void expect_all_pass(const GenOptions& o, uint64_t seed) {
  RC_LOG() << describe(o, seed);
  const std::string text = testing::generate_history(o, seed);
  const History h = parse_or_die(text);
  const CheckResult r = check_history(h);
  for (const PropertyResult& p : r.properties) {
    if (p.verdict == Verdict::kOk || p.verdict == Verdict::kNotApplicable) continue;
    // The generator records no key states; the invariants then cannot be checked.
    if (p.name == "script_invariants" && h.states.empty()) continue;
    RC_LOG() << p.name << ": " << verdict_name(p.verdict) << ": " << p.reason << "\n" << p.explanation.text << "\n";
    if (const char* dump = std::getenv("LOCKSTEP_DUMP_FAILED")) std::ofstream(dump) << text;
    RC_FAIL("a legal history did not pass");
  }
}

RC_GTEST_PROP(Soundness, LegalReentrantHistoriesPass, ()) {
  expect_all_pass(random_options(LockKind::kReentrant), *rc::gen::arbitrary<uint64_t>());
}

RC_GTEST_PROP(Soundness, LegalSimpleLockHistoriesPass, ()) {
  expect_all_pass(random_options(LockKind::kSimple), *rc::gen::arbitrary<uint64_t>());
}

RC_GTEST_PROP(Soundness, LegalRwlockHistoriesPass, ()) {
  expect_all_pass(random_options(LockKind::kRwlock), *rc::gen::arbitrary<uint64_t>());
}

RC_GTEST_PROP(Soundness, LegalFairLockHistoriesPass, ()) {
  GenOptions o = random_options(LockKind::kReentrant);
  o.fair = true;
  o.execs = true;
  expect_all_pass(o, *rc::gen::arbitrary<uint64_t>());
}

RC_GTEST_PROP(Soundness, LegalRedlockHistoriesPass, ()) {
  GenOptions o = random_options(LockKind::kRedlock);
  o.redlock = true;
  o.nodes = *rc::gen::element(3, 5);
  o.execs = true;
  expect_all_pass(o, *rc::gen::arbitrary<uint64_t>());
}

}  // namespace
}  // namespace lockstep::checker
