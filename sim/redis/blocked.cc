// Blocking pops (Redis's blocked.c and the list half of serveClientsBlockedOnKey): clients
// inside BLPOP/BRPOP, served by later pushes or timed out by the node clock.
//
// Redis signals a key as ready when a push creates it; here every key someone is blocked on is
// looked at after each top-level command instead. The two agree: a blocked client's keys held no
// list when it blocked, so a key that holds one now was created by a push since. The look costs
// nothing while nobody is blocked.
#include <string>
#include <utility>
#include <vector>

#include "sim/core/assert.h"
#include "sim/redis/server.h"

namespace lockstep::redis {

bool Server::can_block(const Client& client) const {
  return config_.hooks.on_block && config_.hooks.on_unblock && !client.multi;
}

void Server::block_for_pop(Client& client, std::vector<std::string> keys, bool head, int64_t deadline_ms) {
  LS_ASSERT(can_block(client));
  LS_ASSERT(!client.blocked);
  LS_ASSERT(!keys.empty());
  for (const std::string& key : keys) {
    std::deque<ConnectionId>& waiting = blocked_on_[{client.db, key}];
    // BLPOP k k blocks once on k, as Redis's blockForKeys skips a key it already added.
    if (waiting.empty() || waiting.back() != client.id) waiting.push_back(client.id);
  }
  client.blocked = std::make_unique<Client::BlockedPop>(Client::BlockedPop{std::move(keys), head, deadline_ms});
  config_.hooks.on_block(client.id, deadline_ms);
}

void Server::forget_blocked(Client& client) {
  if (!client.blocked) return;
  for (const std::string& key : client.blocked->keys) {
    auto it = blocked_on_.find({client.db, key});
    if (it == blocked_on_.end()) continue;  // a repeated key, already forgotten
    std::erase(it->second, client.id);
    if (it->second.empty()) blocked_on_.erase(it);
  }
  client.blocked.reset();
}

void Server::serve_blocked_clients() {
  // Serving changes blocked_on_ (a served client leaves every key it waited on): walk a copy of
  // the keys and look each up again.
  std::vector<std::pair<int, std::string>> keys;
  keys.reserve(blocked_on_.size());
  for (const auto& [where, waiting] : blocked_on_) keys.push_back(where);
  for (const auto& [db_index, key] : keys) {
    while (true) {
      auto it = blocked_on_.find({db_index, key});
      if (it == blocked_on_.end()) break;
      const Entry* found = db(db_index).find(key);
      if (found == nullptr || value_if<ListValue>(found->value) == nullptr) break;
      Entry* e = lookup(db_index, key);  // lazy expiry, as Redis's lookup when serving
      ListValue* list = e != nullptr ? value_if<ListValue>(e->value) : nullptr;
      if (list == nullptr) break;
      LS_ASSERT(!list->empty());
      Client* client = this->client(it->second.front());
      LS_ASSERT(client != nullptr && client->blocked);
      const bool head = client->blocked->head;
      std::string element = list_pop(*list, head);
      if (list->empty()) {
        const bool removed = db(db_index).remove(key);
        LS_ASSERT(removed);
      }
      touch_key(db_index, key);
      if (propagating()) {
        const std::string effect[] = {head ? "LPOP" : "RPOP", key};
        propagate(db_index, std::span<const std::string>(effect));
      }
      const ConnectionId id = client->id;
      forget_blocked(*client);
      config_.hooks.on_unblock(id, outgoing(Reply::array({Reply::bulk(key), Reply::bulk(std::move(element))})));
    }
  }
}

size_t Server::time_out_blocked() {
  if (blocked_on_.empty()) return 0;
  const int64_t now = mstime();
  std::vector<ConnectionId> due;
  clients_.for_each([&](const Client& client) {
    if (client.blocked && client.blocked->deadline_ms != 0 && now > client.blocked->deadline_ms) {
      due.push_back(client.id);
    }
  });
  for (ConnectionId id : due) {
    Client* client = this->client(id);
    LS_ASSERT(client != nullptr);
    forget_blocked(*client);
    config_.hooks.on_unblock(id, outgoing(Reply::nil_array()));
  }
  return due.size();
}

void Server::unblock_all_with_error(std::string_view error) {
  if (blocked_on_.empty()) return;
  std::vector<ConnectionId> blocked;
  clients_.for_each([&](const Client& client) {
    if (client.blocked) blocked.push_back(client.id);
  });
  for (ConnectionId id : blocked) {
    forget_blocked(*this->client(id));
    config_.hooks.on_unblock(id, Reply::error(error));
  }
}

}  // namespace lockstep::redis
