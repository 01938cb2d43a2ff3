// The node's internals (Node::Impl): databases, clients, time, lazy expiry, propagation.
//
// Command handlers (t_*.cc, expire.cc, pubsub.cc, eval.cc, t_server.cc) receive a Call naming the
// server, the client and the arguments; they follow Redis's shape
// `lookup -> type check -> operation -> reply -> side effects` and report writes through
// Call::dirty (and Call::rewrite when Redis propagates a different command than the one run).
// Nothing here reads a real clock: time comes from NodeConfig::clock_us.
#ifndef LOCKSTEP_SIM_REDIS_SERVER_H_
#define LOCKSTEP_SIM_REDIS_SERVER_H_

#include <array>
#include <cstdint>
#include <map>
#include <deque>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/on_demand.h"
#include "sim/core/rng.h"
#include "sim/redis/db.h"
#include "sim/redis/node.h"
#include "sim/redis/reply.h"

namespace lockstep::redis {

class Scripting;
class PubSub;
class Server;
struct Command;
struct Subcommand;

inline constexpr int kDatabases = 16;
using Args = std::span<const std::string_view>;

// A set of names kept sorted in one vector: a connection subscribes to a few channels, and a
// std::set spent a 64-byte node on each besides the name. Iterates in bytewise order, as
// UNSUBSCRIBE without arguments replies.
class NameSet {
 public:
  using const_iterator = std::vector<std::string>::const_iterator;
  // Adds `name`. True if it was not there.
  bool insert(std::string_view name);
  // Removes `name`. True if it was there.
  bool erase(std::string_view name);
  size_t size() const { return names_.size(); }
  bool empty() const { return names_.empty(); }
  const_iterator begin() const { return names_.begin(); }
  const_iterator end() const { return names_.end(); }

 private:
  std::vector<std::string> names_;
};

struct Subscriptions {
  NameSet channels;
  NameSet patterns;
  NameSet shard_channels;  // SSUBSCRIBE
};

// One connection's state. A node keeps two per simulated client (B5 counts bytes per client):
// what few connections use is allocated on first use, and the small fields sit together.
struct Client {
  ConnectionId id = 0;
  int db = 0;
  // The protocol (HELLO): 2 or 3. Decides what handlers build where Redis's replies differ in
  // structure, not just in type (ZRANGE WITHSCORES pairs, PING and the commands allowed while
  // subscribed). A script's client starts at 2 and redis.setresp() changes it.
  int resp = 2;
  bool resp3() const { return resp == 3; }
  bool no_evict = false;  // CLIENT NO-EVICT ON
  // ---- MULTI/EXEC and WATCH (multi.cc) ----
  bool multi = false;       // between MULTI and EXEC/DISCARD: commands are queued
  bool dirty_exec = false;  // a command was refused while queuing: EXEC aborts (EXECABORT)
  bool dirty_cas = false;   // a watched key was touched: EXEC fails with a null array
  OnDemand<std::string> name;  // CLIENT SETNAME
  // For CLIENT LIST / CLIENT INFO; absent while it is the default (simulated connections).
  OnDemand<ConnectionInfo> info;
  int64_t created_ms = 0;           // node clock at connect
  int64_t last_interaction_ms = 0;  // node clock at the last request
  const Command* last_command = nullptr;        // the last command looked up (nullptr: unknown)
  const Subcommand* last_subcommand = nullptr;  // and its subcommand, for containers
  // Subscriptions, allocated by the first (P|S)SUBSCRIBE: most connections never subscribe.
  OnDemand<Subscriptions> subs;
  // What (P)SUBSCRIBE notices count: channels and patterns (SSUBSCRIBE's count shard channels).
  size_t subscription_count() const { return subs ? subs->channels.size() + subs->patterns.size() : 0; }
  // All three kinds: a client with any is in subscribed mode (Redis's CLIENT_PUBSUB flag).
  size_t total_subscription_count() const { return subs ? subscription_count() + subs->shard_channels.size() : 0; }

  // MULTI/EXEC and WATCH (the flags are above).
  struct WatchedKey {
    int db;
    std::string key;
    bool expired;  // already logically expired when WATCH ran
  };
  struct Transaction {
    std::vector<std::vector<std::string>> queued;
    uint32_t queued_flags = 0;  // the union of the queued commands' flags
    std::vector<WatchedKey> watched;
  };
  // Queued commands and watched keys, allocated by the first command queued or key watched:
  // most connections never use MULTI.
  OnDemand<Transaction> tx;

  // ---- Blocking pops (blocked.cc) ----
  // Inside BLPOP/BRPOP: waiting for a push to one of `keys` (in `db`) or for the node clock to
  // pass `deadline_ms` (0: no timeout). The connection's next requests wait behind it.
  struct BlockedPop {
    std::vector<std::string> keys;
    bool head = true;  // BLPOP pops the head, BRPOP the tail
    int64_t deadline_ms = 0;
  };
  std::unique_ptr<BlockedPop> blocked;  // null: not blocked
};

// A node's connections by id. Ids are handed out in increasing order, so slots indexed by
// `id - base_` keep them in id order (CLIENT LIST's) at 8 bytes a slot, where a std::map spent
// a 48-byte tree node on each. Closed connections at either end give their slots back.
class ClientTable {
 public:
  Client* find(ConnectionId id);
  // REQUIRES: client.id is greater than every id added before (since the last clear()).
  Client& add(Client client);
  // Removes the connection `id`, if present.
  void erase(ConnectionId id);
  size_t size() const { return size_; }
  void clear();
  // Calls fn(Client&) for every connection, in id order. fn must not add or erase.
  template <typename Fn>
  void for_each(Fn&& fn) const {
    for (const std::unique_ptr<Client>& c : slots_) {
      if (c) fn(*c);
    }
  }

 private:
  std::deque<std::unique_ptr<Client>> slots_;
  ConnectionId base_ = 0;  // the id of slots_.front()
  size_t size_ = 0;
};

// One command being executed: who runs it, its arguments, where replies go, what it changed.
struct Call {
  Call(Server& server, Client& c, Args args, std::vector<Reply>& replies, const Command* command,
       bool script = false)
      : srv(server), client(c), argv(args), out(replies), cmd(command), from_script(script) {}

  Server& srv;
  Client& client;
  Args argv;
  std::vector<Reply>& out;
  const Command* cmd = nullptr;
  bool from_script = false;
  // False inside a script after redis.set_repl(redis.REPL_NONE): its writes are not propagated.
  bool propagate = true;
  // Number of changes; a command that changed something is propagated.
  uint64_t dirty = 0;
  // Propagate even without changes (PUBLISH, as Redis does towards replicas).
  bool force_propagate = false;
  // The handler signalled the keys it modified itself (Server::touch_key), so Server::call does
  // not touch the command's key arguments for WATCH (COPY modifies only its destination).
  bool keys_signalled = false;
  // When non-empty, propagated instead of argv (PEXPIREAT for EXPIRE, DEL for an expiry in the
  // past, SET ... PXAT for SET EX). Only filled when something listens (see Server::propagating).
  std::vector<std::string> rewrite;

  Keyspace& db();
  // The live entry of `key` in the client's database (lazy expiry applied), or nullptr.
  Entry* lookup(std::string_view key);
  void reply(Reply r) { out.push_back(std::move(r)); }
  void error(std::string_view text) { out.push_back(Reply::error(text)); }
  // Replies WRONGTYPE.
  void wrong_type();
  // Replies "ERR wrong number of arguments for '<cmd>' command".
  void arity_error();
  // Replies "ERR syntax error".
  void syntax_error();
  // Replies "ERR value is not an integer or out of range".
  void not_integer();
};

// Common error texts of Redis 7.0.
inline constexpr std::string_view kWrongTypeError =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNotIntegerError = "ERR value is not an integer or out of range";
inline constexpr std::string_view kSyntaxError = "ERR syntax error";
inline constexpr std::string_view kReadOnlyError =
    "READONLY You can't write against a read only replica.";

class Server {
 public:
  explicit Server(NodeConfig config);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // ---- Time -------------------------------------------------------------------------------
  // The node clock now, in ms (Redis's mstime()): used by TTL arithmetic, PTTL and TIME.
  int64_t mstime() const;
  int64_t ustime() const;
  // The time key-expiry checks compare against: frozen at script start while a script runs,
  // otherwise cached at the start of the top-level command.
  int64_t expiry_time_ms() const { return script_running_ ? script_time_ms_ : command_time_ms_; }

  // ---- Keys (expiry.cc) ---------------------------------------------------------------------
  // The live entry of `key` in database `db`, after lazy expiry: a logically expired key is
  // absent; on a master it is also deleted (hooks.on_expire, a DEL propagated).
  Entry* lookup(int db, std::string_view key);
  // True when `entry` has an expiry that has passed (now > expire_at) for normal clients.
  bool logically_expired(const Entry& entry) const;
  // Deletes an expired key as Redis's deleteExpiredKeyAndPropagate does.
  void expire_key(int db, std::string_view key, int64_t now_ms);
  size_t active_expire_cycle();

  // ---- Propagation ------------------------------------------------------------------------
  // True when a write's effect must be built (an on_propagate hook is set).
  bool propagating() const { return static_cast<bool>(config_.hooks.on_propagate); }
  // Emits one effect in database `db`, preceded by SELECT when the stream's database differs.
  void propagate(int db, Args effect);
  void propagate(int db, std::span<const std::string> effect);

  // ---- Command execution (node.cc) --------------------------------------------------------
  // Runs a parsed, arity-checked command and propagates it if it wrote.
  void call(Call& c);
  // Starts a top-level command: caches the command time and opens a new atomic group.
  void begin_top_level();

  // ---- WATCH (multi.cc) ---------------------------------------------------------------------
  // Redis's signalModifiedKey for transactions: every client watching `key` in `db` will see
  // its EXEC fail (touchWatchedKey, including its quirk for keys watched while already expired).
  void touch_key(int db, std::string_view key);
  // FLUSHDB/FLUSHALL (touchAllWatchedKeysInDb): before database `db` is emptied.
  void touch_all_in_db(int db);
  // True when some client watches some key: the only case where writes need to signal.
  bool watching() const { return !watchers_.empty(); }
  // The watchers of `key` in `db` (created empty), for WATCH.
  std::vector<ConnectionId>& watchers_of(std::pair<int, std::string> where) { return watchers_[std::move(where)]; }
  // Forgets every key `client` watches (UNWATCH, EXEC, DISCARD, RESET, disconnect).
  void unwatch_all(Client& client);
  // Leaves MULTI: drops the queue, clears both dirty flags and unwatches (discardTransaction).
  void discard_transaction(Client& client);

  // ---- Blocking pops (blocked.cc) ------------------------------------------------------------
  // True when a command may block its client: the host can deliver a late reply
  // (hooks.on_block and hooks.on_unblock are set) and the client is not running EXEC.
  bool can_block(const Client& client) const;
  // Redis's blockForKeys: `client` waits for a push to one of `keys` in its database.
  // REQUIRES: can_block(client); the client is not blocked already.
  void block_for_pop(Client& client, std::vector<std::string> keys, bool head, int64_t deadline_ms);
  // Redis's handleClientsBlockedOnKeys: after each top-level command, every blocked client
  // whose key now holds a list pops from it, first blocked first served per key, keys in
  // (db, name) order; each pop is propagated as LPOP/RPOP and its reply leaves through
  // hooks.on_unblock. Runs after every command: nothing to do while nobody is blocked.
  void serve_blocked() {
    if (!blocked_on_.empty()) serve_blocked_clients();
  }
  // Clients whose deadline has passed (now > deadline) get a nil reply. Returns how many.
  size_t time_out_blocked();
  // Every blocked client gets `error` (a master turned into a replica).
  void unblock_all_with_error(std::string_view error);
  // Forgets a client's blocked state without a reply (disconnect).
  void forget_blocked(Client& client);

  // ---- State ------------------------------------------------------------------------------
  const NodeConfig& config() const { return config_; }
  NodeHooks& hooks() { return config_.hooks; }
  // The reply as it leaves the node: as built, or in its RESP2 shape (NodeConfig::typed_replies).
  Reply outgoing(Reply reply) const;
  Keyspace& db(int index);
  const Keyspace& db(int index) const;
  ClientTable& clients() { return clients_; }
  Client* client(ConnectionId id);
  PubSub& pubsub() { return *pubsub_; }
  Scripting& scripting() { return *scripting_; }

  bool replica() const { return replica_; }
  void set_replica(bool replica) { replica_ = replica; }
  // True while applying the master's stream: keys never look expired, as for Redis's master link.
  bool applying_replicated() const { return applying_replicated_; }
  void set_applying_replicated(bool on) { applying_replicated_ = on; }
  int replication_db() const { return replication_db_; }
  void set_replication_db(int db) { replication_db_ = db; }

  void set_script_running(bool running, int64_t time_ms) {
    script_running_ = running;
    script_time_ms_ = time_ms;
  }
  bool script_running() const { return script_running_; }

  // What SPOP, SRANDMEMBER and RANDOMKEY draw from (Redis's random()). Fixed start, so the
  // simulator stays a function of its seed and serve answers the same sequence after each start.
  Rng& random() { return random_; }

  uint64_t commands_executed = 0;
  ConnectionId next_client_id = 1;

  // Empties every database (FLUSHALL, restart).
  void flush_all();
  // A restart without persistence: no keys, no scripts, no connections, fresh replication state.
  void restart();
  // Drops all connections and their subscriptions.
  void drop_clients();

 private:
  NodeConfig config_;
  std::array<Keyspace, kDatabases> dbs_;
  ClientTable clients_;
  std::unique_ptr<PubSub> pubsub_;
  std::unique_ptr<Scripting> scripting_;
  Rng random_{hash_bytes("redis random commands")};
  bool replica_ = false;
  bool applying_replicated_ = false;
  int replication_db_ = 0;      // the replica side: database the master stream is writing to
  int propagated_db_ = 0;       // the master side: database of the last propagated effect
  uint64_t atomic_group_ = 0;   // number of the last group handed out
  bool group_open_ = false;     // the current top-level command already has a group number
  int64_t command_time_ms_ = 0;
  bool script_running_ = false;
  int64_t script_time_ms_ = 0;
  std::vector<std::string> effect_buf_;  // reused to build effects without reallocating
  void serve_blocked_clients();
  // Blocked clients by (db, key), in the order they blocked.
  std::map<std::pair<int, std::string>, std::deque<ConnectionId>> blocked_on_;
  // Watched keys: (db, key) -> the watching clients, in the order they ran WATCH.
  std::map<std::pair<int, std::string>, std::vector<ConnectionId>> watchers_;
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_SERVER_H_
