// Runs the same command sequence on the node model and on a real redis-server, step by step,
// and reports the first step whose replies differ.
//
// Each side has two client connections (conn0, conn1), both speaking RESP2 or both RESP3 (HELLO
// 3 on connecting; a step may switch one with HELLO). After every step, each connection on
// each side is synchronised with a barrier "PING <token>": on the real server, everything read
// before the barrier's reply belongs to the step (its replies, in order, and any pub/sub
// messages that arrived), so replies and pushes are compared in the order a client sees them,
// even for commands with several replies (SUBSCRIBE a b). Before each sequence both sides get
// FLUSHALL and SCRIPT FLUSH and fresh connections. The model's clock is the real clock.
//
// What is compared is what a client of that protocol reads: Redis's replies as hiredis (RESP2)
// or resp::ReplyParser (RESP3) reads them, and the model's typed replies as `lockstep serve`
// writes them for the connection's protocol (resp::append_reply) read back by the same parser
// (so RESP3's single null "_" stands for both nils on both sides).
#ifndef LOCKSTEP_TESTS_DIFFERENTIAL_DIFF_RUNNER_H_
#define LOCKSTEP_TESTS_DIFFERENTIAL_DIFF_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "sim/core/status.h"
#include "tests/differential/command_gen.h"

namespace lockstep::differential {

class DiffRunner {
 public:
  // Starts a redis-server and a model node.
  static Result<std::unique_ptr<DiffRunner>> create();
  ~DiffRunner();

  // Runs `steps` on both sides with connections that start in `protocol` (2 or 3). Returns ""
  // when every step matched, otherwise a report: the sequence up to the first mismatch with
  // both sides' replies.
  std::string run(const std::vector<Step>& steps, int protocol = 2);

  // Steps run so far (for the test's summary line).
  uint64_t steps_run() const;

 private:
  struct Impl;
  explicit DiffRunner(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace lockstep::differential

#endif  // LOCKSTEP_TESTS_DIFFERENTIAL_DIFF_RUNNER_H_
