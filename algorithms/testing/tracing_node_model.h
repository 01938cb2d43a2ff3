// TracingNodeModel: a test-only decorator of the real Redis node model that records what a
// MONITOR would print — every command a client sent, and every redis.call a script made.
//
// Scripts are traced without touching the model: an EVAL (or an EVALSHA of a body seen
// before) runs a wrapped body in which a local `redis` table shadows the real one and logs each
// call before forwarding it; the log is handed back through a scratch key that the decorator
// reads and deletes right after. The script's own semantics and reply are unchanged.
#ifndef LOCKSTEP_ALGORITHMS_TESTING_TRACING_NODE_MODEL_H_
#define LOCKSTEP_ALGORITHMS_TESTING_TRACING_NODE_MODEL_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/kernel/node_model.h"

namespace lockstep::algorithms::testing {

// One line per command: `EVAL <sha1> 1 L 30000 u:1` (a script's body replaced by its SHA-1) or
// `SUBSCRIBE ch` for commands from clients, `lua exists L` for calls made by scripts.
using Trace = std::vector<std::string>;

// Wraps `inner`'s models; appends to *trace. REQUIRES: trace outlives the models.
kernel::NodeModelFactory tracing_factory(kernel::NodeModelFactory inner, Trace* trace);

}  // namespace lockstep::algorithms::testing

#endif  // LOCKSTEP_ALGORITHMS_TESTING_TRACING_NODE_MODEL_H_
