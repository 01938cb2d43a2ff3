// TracingBackend: a Backend that hands every command to another one and writes it to a trace
// first, as MONITOR shows commands (`lockstep serve --trace FILE`, docs/serve.md).
//
// One JSON line per command, in execution order: {"node": 0, "conn": 5, "argv": ["SET", ...]}
// (`conn` is the connection's id on that node, as CLIENT ID says). The trace is flushed after
// every line, so a reader sees each command once it has run. Arguments that are not valid UTF-8
// are written with U+FFFD in place of the bad bytes.
#ifndef LOCKSTEP_CLI_SERVE_TRACING_BACKEND_H_
#define LOCKSTEP_CLI_SERVE_TRACING_BACKEND_H_

#include <cstdio>
#include <memory>

#include "cli/serve/backend.h"

namespace lockstep::serve {

// A shared, open trace file (every node writes to the same one).
struct Trace {
  std::FILE* file = nullptr;
  ~Trace() {
    if (file != nullptr) std::fclose(file);
  }
};

// Wraps `inner` so that node `node`'s commands go to `trace`. REQUIRES: trace->file is open.
std::unique_ptr<Backend> make_tracing_backend(std::unique_ptr<Backend> inner, int node, std::shared_ptr<Trace> trace);

}  // namespace lockstep::serve

#endif  // LOCKSTEP_CLI_SERVE_TRACING_BACKEND_H_
