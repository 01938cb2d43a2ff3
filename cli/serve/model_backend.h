// The Redis node model as a `lockstep serve` backend, clocked by the real clock.
//
// This is the one place where the node's clock_us reads wall time (Unix microseconds, so TIME
// and expiries look like a real server's); inside the simulator the same node reads a
// simulated local clock. Pub/sub deliveries leave through the node's on_message hook.
#ifndef LOCKSTEP_CLI_SERVE_MODEL_BACKEND_H_
#define LOCKSTEP_CLI_SERVE_MODEL_BACKEND_H_

#include "cli/serve/backend.h"

namespace lockstep::serve {

// A factory for ServeOptions::backend that builds one redis::Node per port.
BackendFactory model_backend_factory();

}  // namespace lockstep::serve

#endif  // LOCKSTEP_CLI_SERVE_MODEL_BACKEND_H_
