// One Redis 7.0 node: keyspace, expiry, pub/sub, scripting on the real Lua 5.1 VM.
//
// The node is a passive state machine: the caller hands it one command at a time and it answers
// synchronously, exactly as a single-threaded redis-server processes one command after another.
// It never reads a real clock; its local time comes from the clock function it is given, which
// the simulator derives from the node's simulated local clock and `lockstep serve` derives from
// the real clock. Everything the world outside the node must learn about (pub/sub deliveries,
// the replication/AOF stream, key expiries, WAIT) leaves through NodeHooks.
//
// Organisation follows Redis's source: one file per data type (t_string, t_hash, t_list, t_set,
// t_zset), expiry in one place (expire), reply conversion for Lua in one place (script_lua).
#ifndef LOCKSTEP_SIM_REDIS_NODE_H_
#define LOCKSTEP_SIM_REDIS_NODE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/redis/dataset.h"
#include "sim/redis/reply.h"

namespace lockstep::redis {

using ConnectionId = uint64_t;

struct NodeHooks {
  // A pub/sub message for a subscribed connection: the push ["message", channel, payload] or
  // ["pmessage", pattern, channel, payload] (an array unless NodeConfig::typed_replies).
  std::function<void(ConnectionId, const Reply&)> on_message;
  // One write as Redis propagates it to replicas and the AOF: relative expiries rewritten as
  // PEXPIREAT, key expiry as DEL, a script's writes as the individual commands it ran
  // (effects replication, the only mode in 7.0). `atomic_group` is the same number for all
  // effects of one top-level command, so a replica can apply a script's effects together.
  std::function<void(std::span<const std::string> effect, uint64_t atomic_group)> on_propagate;
  // A key was removed because its TTL passed (lazily on access or by the active cycle).
  std::function<void(std::string_view key, int64_t local_ms)> on_expire;
  // WAIT numreplicas timeout_ms arrived. When set, the hook owns the reply: the node appends
  // nothing and the caller answers later (the simulator knows replica acknowledgements).
  // When unset, WAIT answers at once with the number of replicas (always 0 here).
  std::function<void(ConnectionId, int64_t numreplicas, int64_t timeout_ms)> on_wait;
  // BLPOP/BRPOP found nothing to pop and blocked the connection: its reply comes later through
  // on_unblock, when a push serves it or when the node clock passes `deadline_ms` (0: never)
  // and the host calls Node::time_out_blocked(). Until then the host must not run the
  // connection's next requests (Redis reads nothing from a blocked client). Without both hooks
  // a blocking pop that finds nothing answers nil at once, as inside MULTI.
  std::function<void(ConnectionId, int64_t deadline_ms)> on_block;
  // The late reply of a blocked connection: the popped [key, element], nil on timeout, or an
  // error. The connection is no longer blocked when this runs.
  std::function<void(ConnectionId, const Reply&)> on_unblock;
  // SHUTDOWN (without SAVE) was accepted from this connection: the host ends the node, and
  // the caller gets no reply. Without the hook SHUTDOWN answers an error.
  std::function<void(ConnectionId)> on_shutdown;
};

// SHUTDOWN's arguments (argv[0] is the command's name), for a host that answers SHUTDOWN itself
// while the node is busy in a script: Redis accepts SHUTDOWN NOSAVE then, and only that.
struct ShutdownArgs {
  bool valid = false;  // false: Redis's "ERR syntax error"
  bool abort = false;
  bool save = false;
  bool nosave = false;
};
ShutdownArgs parse_shutdown(std::span<const std::string_view> argv);

// Where the lines a script executes are counted (coverage, sim/kernel/coverage.h): the caller
// points `current` at the counts of the script it is about to run (index = line) and back at
// null after. Counting only observes: a run does the same with or without it.
struct LineCounts {
  std::vector<uint64_t>* current = nullptr;
};

struct NodeConfig {
  // The node's local clock in microseconds. Expiry uses milliseconds (local_us / 1000).
  std::function<int64_t()> clock_us;
  // Lua instructions one script may run before it is stopped with an error (checked by a count
  // hook every 1000 instructions). Deterministic, unlike Redis's wall-clock busy limit.
  uint64_t lua_instruction_budget = 100'000'000;
  // Bytes the node's Lua state may hold while a script runs; beyond it the script fails with
  // "not enough memory" (Redis has no such limit).
  size_t lua_memory_limit_bytes = 256u << 20;
  // How replies leave the node. False (the simulator, which has no wire protocol): every reply
  // and pub/sub message is given in its RESP2 shape (to_resp2), whatever protocol a connection
  // chose with HELLO, so callers only ever see RESP2 types. True (`lockstep serve`, the
  // differential test): replies keep the types Redis 7.0 gives them (maps, sets, doubles,
  // pushes...), and the caller writes them in the connection's protocol (protocol()).
  bool typed_replies = false;
  // The TCP port INFO reports (`lockstep serve`: the node's listening port; 0 in the simulator).
  int tcp_port = 0;
  // When set, scripts count the lines they execute into *line_counts->current (if non-null).
  // REQUIRES: outlives the node.
  LineCounts* line_counts = nullptr;
  NodeHooks hooks;
};

// Where a connection comes from, as CLIENT LIST and CLIENT INFO show it. `lockstep serve` gives
// its sockets' addresses; the simulator's connections have none ("?:0" and fd -1, as Redis shows
// a connection without a socket).
struct ConnectionInfo {
  std::string addr = "?:0";
  std::string laddr = "?:0";
  int fd = -1;
  bool operator==(const ConnectionInfo&) const = default;
};

// A copy of a node's data: what an RDB snapshot or a restart with persistence keeps.
class Dataset;

// What one key holds, for recording node state in histories and for tests.
struct KeyDump {
  std::string type;                  // "string", "hash", "list", "set", "zset"
  std::vector<std::string> strings;  // string: {value}; list/set: members in order;
                                     // hash: field, value, field, value...;
                                     // zset: member, score, member, score... (score as Redis prints it)
  int64_t expire_at_ms = -1;         // absolute local ms, -1 for none
};

class Node {
 public:
  explicit Node(NodeConfig config);
  ~Node();
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;

  // Opens a client connection (its pub/sub subscriptions and protocol state).
  ConnectionId connect(ConnectionInfo info = {});
  // Closes a connection; its subscriptions are dropped. Unknown ids are ignored.
  void disconnect(ConnectionId id);
  // The protocol the connection speaks: 2 until HELLO 3 switches it, 2 again after HELLO 2 or
  // RESET. Its replies and pub/sub messages are to be written in it.
  // REQUIRES: `id` was returned by connect() and not disconnected.
  int protocol(ConnectionId id) const;

  // Runs one command. Appends its reply to `out` — several replies for (P)SUBSCRIBE and
  // (P)UNSUBSCRIBE with several channels, none for WAIT when hooks.on_wait is set. Replies are
  // typed or in their RESP2 shape as NodeConfig::typed_replies says.
  // Never throws; bad input gets Redis's own error reply.
  // REQUIRES: `id` was returned by connect() and not disconnected.
  void execute(ConnectionId id, std::span<const std::string_view> argv, std::vector<Reply>& out);

  // Convenience for tests and for callers with exactly one reply.
  Reply execute_one(ConnectionId id, std::span<const std::string_view> argv);

  // Blocked connections (BLPOP/BRPOP) whose deadline has passed get their nil reply through
  // hooks.on_unblock. Returns how many. Hosts call it when a deadline given to hooks.on_block
  // is reached.
  size_t time_out_blocked();

  // Deletes every key whose TTL has passed (Redis's active expire cycle, made deterministic:
  // all expired keys, in expiry-time order, ties by key). Returns how many were deleted.
  // Replicas never expire keys themselves.
  size_t active_expire_cycle();

  // Replica mode: client writes get READONLY, keys are not expired locally, and the master's
  // stream is applied with apply_replicated().
  void set_replica(bool replica);
  bool is_replica() const;
  // Applies one propagated effect (as produced by on_propagate) without producing a reply.
  void apply_replicated(std::span<const std::string> effect);

  // Persistence and restart.
  std::unique_ptr<Dataset> snapshot() const;
  void restore(const Dataset& data);
  // Empties the keyspace and the script cache and drops all connections: a restart without
  // persistence (restore() may follow for one with persistence).
  void reset();

  // Introspection (never changes state, never expires anything).
  std::optional<KeyDump> inspect(std::string_view key) const;
  std::vector<std::string> keys_sorted() const;
  size_t dbsize() const;
  // Commands and scripts executed so far (a per-node sequence number for histories).
  uint64_t commands_executed() const;

  // `lockstep serve` only (LuaHost::set_busy_check): a check the running script's instruction
  // hook calls, to serve other clients meanwhile and to stop the script on SCRIPT KILL. The
  // simulator never installs one.
  void set_script_busy_check(bool (*check)(void* context), void* context);
  // Whether a script is running now, and whether it has written (SCRIPT KILL refuses then).
  bool script_running() const;
  bool script_wrote() const;
  // Whether the running script is a function (FCALL): SCRIPT KILL and FUNCTION KILL each stop
  // only their own kind.
  bool running_function() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// SHA-1 of a script body as lowercase hex, as EVALSHA and SCRIPT LOAD name it.
std::string sha1_hex(std::string_view data);

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_NODE_H_
