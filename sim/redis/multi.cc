// MULTI, EXEC, DISCARD, WATCH, UNWATCH and the key signals behind WATCH (Redis's multi.c).
//
// Queuing itself happens in dispatch (node.cc), where Redis's processCommand does it: a command
// that fails the checks before execution (unknown, wrong arity, a write on a replica, a command
// not allowed while subscribed) is refused and marks the transaction (EXEC then answers
// EXECABORT); any other command except EXEC, DISCARD, MULTI, WATCH, QUIT and RESET is queued
// and answered QUEUED. EXEC runs the queue inside one top-level command, so its effects reach
// replicas as one atomic group, as Redis wraps them in MULTI/EXEC.
//
// A watched key is "touched" when a command that wrote touches it (Server::call, for the keys
// the command names that exist before or after it), when it expires or is deleted by expiry,
// and when its database is flushed while it exists. EXEC also fails when a key that was live at
// WATCH has since expired logically (isWatchedKeyExpired).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/server.h"

namespace lockstep::redis {

void Server::unwatch_all(Client& client) {
  if (!client.tx) return;
  for (const Client::WatchedKey& w : client.tx->watched) {
    auto it = watchers_.find({w.db, w.key});
    LS_ASSERT(it != watchers_.end());
    std::vector<ConnectionId>& ids = it->second;
    ids.erase(std::find(ids.begin(), ids.end(), client.id));
    if (ids.empty()) watchers_.erase(it);
  }
  client.tx->watched.clear();
}

void Server::discard_transaction(Client& client) {
  if (client.tx) {
    client.tx->queued.clear();
    client.tx->queued_flags = 0;
  }
  client.multi = false;
  client.dirty_exec = false;
  client.dirty_cas = false;
  unwatch_all(client);
}

void Server::touch_key(int db_index, std::string_view key) {
  if (watchers_.empty()) return;
  auto it = watchers_.find({db_index, std::string(key)});
  if (it == watchers_.end()) return;
  const std::vector<ConnectionId> ids = it->second;  // unwatch_all edits the list
  for (ConnectionId id : ids) {
    Client* c = client(id);
    LS_ASSERT(c != nullptr);
    LS_ASSERT(c->tx);
    std::vector<Client::WatchedKey>& watched = c->tx->watched;
    auto w = std::find_if(watched.begin(), watched.end(),
                          [&](const Client::WatchedKey& k) { return k.db == db_index && k.key == key; });
    LS_ASSERT(w != watched.end());
    if (w->expired) {
      // Watched while already expired: its deletion is no logical change. Redis stops at the
      // first such watcher of a key that still exists, leaving the later watchers untouched.
      if (dbs_[db_index].find(key) == nullptr) {
        w->expired = false;
        continue;
      }
      break;
    }
    c->dirty_cas = true;
    unwatch_all(*c);
  }
}

void Server::touch_all_in_db(int db_index) {
  for (auto& [where, ids] : watchers_) {
    if (where.first != db_index || dbs_[db_index].find(where.second) == nullptr) continue;
    for (ConnectionId id : ids) {
      Client* c = client(id);
      LS_ASSERT(c != nullptr);
      LS_ASSERT(c->tx);
      for (Client::WatchedKey& w : c->tx->watched) {
        if (w.db != db_index || w.key != where.second) continue;
        if (w.expired) {
          w.expired = false;  // an expired key deleted: no logical change
        } else {
          c->dirty_cas = true;
        }
      }
    }
  }
}

void cmd_multi(Call& c) {
  if (c.client.multi) return c.error("ERR MULTI calls can not be nested");
  c.client.multi = true;
  c.reply(Reply::ok());
}

void cmd_discard(Call& c) {
  if (!c.client.multi) return c.error("ERR DISCARD without MULTI");
  c.srv.discard_transaction(c.client);
  c.reply(Reply::ok());
}

void cmd_watch(Call& c) {
  if (c.client.multi) return c.error("ERR WATCH inside MULTI is not allowed");
  if (c.client.dirty_cas) return c.reply(Reply::ok());  // no point: EXEC fails anyway
  Keyspace& db = c.db();
  for (size_t j = 1; j < c.argv.size(); j++) {
    const std::string_view key = c.argv[j];
    auto& mine = c.client.tx.for_write().watched;
    if (std::any_of(mine.begin(), mine.end(),
                    [&](const Client::WatchedKey& w) { return w.db == c.client.db && w.key == key; })) {
      continue;
    }
    const Entry* e = db.find(key);
    mine.push_back({c.client.db, std::string(key), e != nullptr && c.srv.logically_expired(*e)});
    c.srv.watchers_of({c.client.db, std::string(key)}).push_back(c.client.id);
  }
  c.reply(Reply::ok());
}

void cmd_unwatch(Call& c) {
  c.srv.unwatch_all(c.client);
  c.client.dirty_cas = false;
  c.reply(Reply::ok());
}

void cmd_exec(Call& c) {
  Client& client = c.client;
  if (!client.multi) return c.error("ERR EXEC without MULTI");
  for (const Client::WatchedKey& w : client.tx.get().watched) {
    if (w.expired) continue;
    const Entry* e = c.srv.db(w.db).find(w.key);
    if (e != nullptr && c.srv.logically_expired(*e)) client.dirty_cas = true;
  }
  if (client.dirty_exec) {
    c.srv.discard_transaction(client);
    return c.error("EXECABORT Transaction discarded because of previous errors.");
  }
  if (client.dirty_cas) {
    c.srv.discard_transaction(client);
    return c.reply(Reply::nil_array());
  }
  c.srv.unwatch_all(client);
  std::vector<std::vector<std::string>> queue;
  if (client.tx) {
    queue = std::move(client.tx->queued);
    client.tx->queued.clear();
  }
  std::vector<Reply> replies;
  std::vector<std::string_view> argv;
  for (const std::vector<std::string>& command : queue) {
    argv.assign(command.begin(), command.end());
    const Command* cmd = lookup_command(argv[0]);
    LS_ASSERT(cmd != nullptr);  // checked when queued
    Call inner(c.srv, client, argv, replies, cmd);
    c.srv.call(inner);
  }
  c.srv.discard_transaction(client);
  // One element per queued command; a command with several replies (SUBSCRIBE a b) sends the
  // rest after the array, as Redis's array header counts commands, not replies.
  const size_t n = std::min(queue.size(), replies.size());
  std::vector<Reply> elements(std::make_move_iterator(replies.begin()),
                              std::make_move_iterator(replies.begin() + static_cast<std::ptrdiff_t>(n)));
  c.reply(Reply::array(std::move(elements)));
  for (size_t i = n; i < replies.size(); i++) c.reply(std::move(replies[i]));
}

}  // namespace lockstep::redis
