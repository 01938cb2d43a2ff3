// Node (the public face) and the Server core it wraps: dispatch, propagation, lifecycle.
#include "sim/redis/node.h"

#include <utility>

#include "sim/core/assert.h"
#include "sim/core/time.h"
#include "sim/redis/commands.h"
#include "sim/redis/eval.h"
#include "sim/redis/pubsub.h"
#include "sim/redis/script_lua.h"
#include "sim/redis/server.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

// ---- Server -------------------------------------------------------------------------------

Server::Server(NodeConfig config) : config_(std::move(config)) {
  LS_ASSERT(static_cast<bool>(config_.clock_us));
  LS_ASSERT(config_.lua_instruction_budget > 0);
  pubsub_ = std::make_unique<PubSub>(*this);
  scripting_ = std::make_unique<Scripting>(*this, config_.lua_instruction_budget,
                                           config_.lua_memory_limit_bytes);
}

Server::~Server() = default;

int64_t Server::ustime() const { return config_.clock_us(); }
int64_t Server::mstime() const { return us_to_ms_floor(config_.clock_us()); }

Reply Server::outgoing(Reply reply) const {
  if (config_.typed_replies || is_resp2(reply)) return reply;
  return to_resp2(std::move(reply));
}

Keyspace& Server::db(int index) {
  LS_ASSERT(index >= 0 && index < kDatabases);
  return dbs_[static_cast<size_t>(index)];
}

const Keyspace& Server::db(int index) const {
  LS_ASSERT(index >= 0 && index < kDatabases);
  return dbs_[static_cast<size_t>(index)];
}

Client* ClientTable::find(ConnectionId id) {
  if (id < base_ || id - base_ >= slots_.size()) return nullptr;
  return slots_[id - base_].get();
}

Client& ClientTable::add(Client client) {
  if (slots_.empty()) base_ = client.id;
  LS_ASSERT(client.id >= base_ + slots_.size());
  while (base_ + slots_.size() < client.id) slots_.emplace_back();
  slots_.push_back(std::make_unique<Client>(std::move(client)));
  size_++;
  return *slots_.back();
}

void ClientTable::erase(ConnectionId id) {
  if (find(id) == nullptr) return;
  slots_[id - base_].reset();
  size_--;
  while (!slots_.empty() && slots_.front() == nullptr) {
    slots_.pop_front();
    base_++;
  }
  while (!slots_.empty() && slots_.back() == nullptr) slots_.pop_back();
  LS_ASSERT(size_ <= slots_.size());
}

void ClientTable::clear() {
  slots_.clear();
  base_ = 0;
  size_ = 0;
}

Client* Server::client(ConnectionId id) { return clients_.find(id); }

void Server::begin_top_level() {
  LS_ASSERT(!script_running_);
  command_time_ms_ = mstime();
  group_open_ = false;
}

void Server::propagate(int db_index, std::span<const std::string> effect) {
  LS_ASSERT(!effect.empty());
  LS_ASSERT(db_index >= 0 && db_index < kDatabases);
  if (!propagating()) return;
  if (!group_open_) {
    atomic_group_++;
    group_open_ = true;
  }
  if (db_index != propagated_db_) {
    // Like Redis's replication stream, a change of database is announced with SELECT.
    const std::string select[] = {"SELECT", int_to_string(db_index)};
    config_.hooks.on_propagate(select, atomic_group_);
    propagated_db_ = db_index;
  }
  config_.hooks.on_propagate(effect, atomic_group_);
}

void Server::propagate(int db_index, Args effect) {
  if (!propagating()) return;
  // effect_buf_ keeps its strings' capacity, so steady-state propagation does not allocate.
  std::vector<std::string> buf = std::move(effect_buf_);
  buf.resize(effect.size());
  for (size_t i = 0; i < effect.size(); i++) buf[i].assign(effect[i].data(), effect[i].size());
  propagate(db_index, std::span<const std::string>(buf));
  effect_buf_ = std::move(buf);
}

namespace {

// The keys a command names, by its key spec (first, last — negative counts from the end —,
// step), in its client's database.
template <typename Fn>
void for_each_key_argument(const Call& c, Fn&& fn) {
  const Command& cmd = *c.cmd;
  if (cmd.first_key <= 0) return;
  const int argc = static_cast<int>(c.argv.size());
  const int last = cmd.last_key < 0 ? argc + cmd.last_key : cmd.last_key;
  for (int j = cmd.first_key; j <= last && j < argc; j += std::max(1, cmd.key_step)) fn(c.argv[static_cast<size_t>(j)]);
}

}  // namespace

void Server::call(Call& c) {
  LS_ASSERT(c.cmd != nullptr);
  LS_ASSERT(arity_ok(c.cmd->arity, c.argv.size()));
  if (watching() && (c.cmd->flags & kCmdWrite) && c.cmd->first_key > 0) {
    // WATCH: a write that changed something touches the keys it names that exist before or
    // after it (a DEL of a missing key touches nothing, as Redis signals only what it changed).
    const int db_index = c.client.db;
    std::vector<std::pair<std::string, bool>> keys;
    for_each_key_argument(c, [&](std::string_view k) { keys.emplace_back(k, db(db_index).find(k) != nullptr); });
    c.cmd->handler(c);
    if (c.dirty > 0 && !c.keys_signalled) {
      for (const auto& [key, existed] : keys) {
        if (existed || db(db_index).find(key) != nullptr) touch_key(db_index, key);
      }
    }
  } else {
    c.cmd->handler(c);
  }
  if (!c.propagate || (c.dirty == 0 && !c.force_propagate) || !propagating()) return;
  if (!c.rewrite.empty()) {
    propagate(c.client.db, std::span<const std::string>(c.rewrite));
  } else {
    propagate(c.client.db, c.argv);
  }
}

void Server::flush_all() {
  for (int i = 0; i < kDatabases; i++) touch_all_in_db(i);
  for (Keyspace& ks : dbs_) ks.clear();
}

void Server::drop_clients() {
  clients_.for_each([&](Client& client) { pubsub_->drop(client); });
  watchers_.clear();
  blocked_on_.clear();
  clients_.clear();
  pubsub_->clear();
}

void Server::restart() {
  LS_ASSERT(!script_running_);
  flush_all();
  drop_clients();
  scripting_->reset();
  replication_db_ = 0;
  propagated_db_ = 0;
  group_open_ = false;
}

Keyspace& Call::db() { return srv.db(client.db); }
Entry* Call::lookup(std::string_view key) { return srv.lookup(client.db, key); }

// ---- Node ---------------------------------------------------------------------------------

struct Node::Impl {
  explicit Impl(NodeConfig config) : server(std::move(config)) {}
  Server server;
  Client master_link;  // the pseudo-client applying the master's stream
};

struct Dataset::Data {
  std::array<Keyspace, kDatabases> dbs;
};

Dataset::Dataset(std::unique_ptr<Data> data) : data_(std::move(data)) { LS_ASSERT(data_ != nullptr); }
Dataset::~Dataset() = default;
Dataset::Dataset(const Dataset& other) : data_(std::make_unique<Data>(*other.data_)) {}

size_t Dataset::key_count() const {
  size_t n = 0;
  for (const Keyspace& ks : data_->dbs) n += ks.size();
  return n;
}

Node::Node(NodeConfig config) : impl_(std::make_unique<Impl>(std::move(config))) {}
Node::~Node() = default;

ConnectionId Node::connect(ConnectionInfo info) {
  Server& s = impl_->server;
  ConnectionId id = s.next_client_id++;
  Client client;
  client.id = id;
  if (info != ConnectionInfo{}) client.info.for_write() = std::move(info);
  client.created_ms = s.mstime();
  client.last_interaction_ms = client.created_ms;
  LS_ASSERT(s.clients().find(id) == nullptr);
  s.clients().add(std::move(client));
  return id;
}

int Node::protocol(ConnectionId id) const {
  const Client* client = impl_->server.clients().find(id);
  LS_ASSERT(client != nullptr);
  return client->resp;
}

void Node::disconnect(ConnectionId id) {
  Server& s = impl_->server;
  Client* client = s.client(id);
  if (client == nullptr) return;
  s.pubsub().drop(*client);
  s.unwatch_all(*client);
  s.forget_blocked(*client);
  s.clients().erase(id);
}

namespace {

// A command refused before it runs (Redis's rejectCommand): inside MULTI it marks the
// transaction, and a refused EXEC aborts it with the reason.
void reject(Server& s, Client& client, const Command* cmd, std::string_view text, std::vector<Reply>& out) {
  if (client.multi) client.dirty_exec = true;
  if (cmd != nullptr && cmd->handler == cmd_exec) {
    s.discard_transaction(client);
    // Redis formats the reason without the "ERR " its other replies get.
    if (text.starts_with("ERR ")) text.remove_prefix(4);
    out.push_back(Reply::error("EXECABORT Transaction discarded because of: " + std::string(text)));
    return;
  }
  out.push_back(Reply::error(text));
}

// True for the commands MULTI does not queue.
bool runs_inside_multi(const Command& cmd) {
  return cmd.handler == cmd_exec || cmd.handler == cmd_discard || cmd.handler == cmd_multi ||
         cmd.handler == cmd_watch || cmd.handler == cmd_quit || cmd.handler == cmd_reset;
}

void dispatch(Server& s, Client& client, Args argv, std::vector<Reply>& out) {
  const Command* cmd = argv.empty() ? nullptr : lookup_command(argv[0]);
  const Subcommand* sub = nullptr;
  const SubcommandProblem problem =
      cmd != nullptr ? resolve_subcommand(*cmd, argv, &sub) : SubcommandProblem::kNone;
  // As processCommand: a container's unknown subcommand is an unknown command.
  client.last_command = problem == SubcommandProblem::kUnknown ? nullptr : cmd;
  client.last_subcommand = sub;
  if (problem == SubcommandProblem::kUnknown) return reject(s, client, nullptr, unknown_subcommand_text(argv), out);
  if (cmd == nullptr) return reject(s, client, nullptr, unknown_command_error(argv), out);
  if (!arity_ok(cmd->arity, argv.size())) {
    return reject(s, client, cmd, arity_error_text(cmd->name), out);
  }
  if (problem == SubcommandProblem::kArity) {
    return reject(s, client, cmd, arity_error_text(full_command_name(*cmd, sub)), out);
  }
  if (problem == SubcommandProblem::kNotModelled) return reject(s, client, cmd, not_modelled_text(*cmd, *sub), out);
  // The effective flags (EVAL's come from its script's shebang) are needed only on a replica and
  // inside MULTI: not computed on the common path.
  if (s.replica()) {
    const bool writes = (command_flags(*cmd, s, argv) & kCmdWrite) ||
                        (cmd->handler == cmd_exec && (client.tx.get().queued_flags & kCmdWrite));
    if (writes) return reject(s, client, cmd, kReadOnlyError, out);
  }
  // RESP3 connections may run any command while subscribed (their messages are pushes).
  if (client.total_subscription_count() > 0 && !client.resp3() && !(cmd->flags & kCmdSubscribedContext)) {
    return reject(s, client, cmd,
                  "ERR Can't execute '" + full_command_name(*cmd, sub) +
                      "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed "
                      "in this context",
                  out);
  }
  if (client.multi && (cmd->flags & kCmdNoMulti)) {
    return reject(s, client, cmd, "ERR Command not allowed inside a transaction", out);
  }
  if (client.multi && !runs_inside_multi(*cmd)) {
    Client::Transaction& tx = client.tx.for_write();
    tx.queued.emplace_back(argv.begin(), argv.end());
    tx.queued_flags |= command_flags(*cmd, s, argv);
    out.push_back(Reply::status("QUEUED"));
    return;
  }
  Call c(s, client, argv, out, cmd);
  s.call(c);
}

}  // namespace

void Node::execute(ConnectionId id, std::span<const std::string_view> argv, std::vector<Reply>& out) {
  Server& s = impl_->server;
  Client* client = s.client(id);
  LS_ASSERT(client != nullptr);
  s.commands_executed++;
  s.begin_top_level();
  client->last_interaction_ms = s.expiry_time_ms();
  const size_t first = out.size();
  dispatch(s, *client, argv, out);
  s.serve_blocked();
  if (s.config().typed_replies) return;
  for (size_t i = first; i < out.size(); i++) {
    if (!is_resp2(out[i])) out[i] = to_resp2(std::move(out[i]));
  }
}

Reply Node::execute_one(ConnectionId id, std::span<const std::string_view> argv) {
  std::vector<Reply> out;
  execute(id, argv, out);
  LS_ASSERT(out.size() == 1);
  return std::move(out.front());
}

size_t Node::active_expire_cycle() { return impl_->server.active_expire_cycle(); }

size_t Node::time_out_blocked() { return impl_->server.time_out_blocked(); }

void Node::set_replica(bool replica) {
  Server& s = impl_->server;
  // Redis's disconnectAllBlockedClients when a master starts following another.
  if (replica && !s.replica()) {
    s.unblock_all_with_error("UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)");
  }
  s.set_replica(replica);
}
bool Node::is_replica() const { return impl_->server.replica(); }

void Node::apply_replicated(std::span<const std::string> effect) {
  Server& s = impl_->server;
  if (effect.empty()) return;
  std::vector<std::string_view> argv(effect.begin(), effect.end());
  if (iequals(argv[0], "select") && argv.size() == 2) {
    int64_t db = 0;
    if (parse_int64(argv[1], &db) && db >= 0 && db < kDatabases) s.set_replication_db(static_cast<int>(db));
    return;
  }
  const Command* cmd = lookup_command(argv[0]);
  // The stream comes from another model node, so it is well formed; anything else is ignored.
  if (cmd == nullptr || !arity_ok(cmd->arity, argv.size())) return;
  s.begin_top_level();
  s.set_applying_replicated(true);
  Client& master = impl_->master_link;
  master.db = s.replication_db();
  std::vector<Reply> replies;
  Call c(s, master, argv, replies, cmd);
  c.propagate = false;
  s.call(c);
  s.set_applying_replicated(false);
}

std::unique_ptr<Dataset> Node::snapshot() const {
  auto data = std::make_unique<Dataset::Data>();
  for (int i = 0; i < kDatabases; i++) data->dbs[static_cast<size_t>(i)] = impl_->server.db(i);
  return std::make_unique<Dataset>(std::move(data));
}

void Node::restore(const Dataset& data) {
  for (int i = 0; i < kDatabases; i++) impl_->server.db(i) = data.data().dbs[static_cast<size_t>(i)];
}

void Node::reset() { impl_->server.restart(); }

std::optional<KeyDump> Node::inspect(std::string_view key) const {
  const Entry* e = impl_->server.db(0).find(key);
  if (e == nullptr) return std::nullopt;
  KeyDump dump;
  dump.type = kTypeNames[e->value.index()];
  dump.expire_at_ms = e->has_expire() ? e->expire_at_ms : -1;
  std::vector<std::string>& out = dump.strings;
  if (const auto* s = std::get_if<StringValue>(&e->value)) {
    out.push_back(*s);
  } else if (const auto* h = value_if<HashValue>(e->value)) {
    h->for_each([&](std::string_view f, std::string_view v) {
      out.emplace_back(f);
      out.emplace_back(v);
    });
  } else if (const auto* l = value_if<ListValue>(e->value)) {
    out.assign(l->begin(), l->end());
  } else if (const auto* set = value_if<SetValue>(e->value)) {
    set->for_each([&](std::string_view m) { out.emplace_back(m); });
  } else if (const auto* z = value_if<ZSetValue>(e->value)) {
    for (const auto& item : z->ordered()) {
      out.push_back(item.member);
      out.push_back(format_double(item.score));
    }
  }
  return dump;
}

std::vector<std::string> Node::keys_sorted() const { return impl_->server.db(0).sorted_keys(); }
size_t Node::dbsize() const { return impl_->server.db(0).size(); }
uint64_t Node::commands_executed() const { return impl_->server.commands_executed; }

void Node::set_script_busy_check(bool (*check)(void* context), void* context) {
  impl_->server.scripting().set_busy_check(check, context);
}

bool Node::script_running() const { return impl_->server.scripting().running_host() != nullptr; }

bool Node::script_wrote() const {
  const LuaHost* host = impl_->server.scripting().running_host();
  return host != nullptr && host->script_wrote();
}

bool Node::running_function() const {
  const LuaHost* host = impl_->server.scripting().running_host();
  return host != nullptr && host->running_function();
}

}  // namespace lockstep::redis
