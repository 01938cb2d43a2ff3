#include "sim/redis/pubsub.h"

#include <algorithm>

#include "sim/core/assert.h"
#include "sim/redis/commands.h"
#include "sim/redis/util.h"

namespace lockstep::redis {

bool PubSub::add(Subscribers& subs, std::string_view name, ConnectionId id) {
  auto it = subs.find(name);
  if (it == subs.end()) it = subs.emplace(std::string(name), std::vector<ConnectionId>{}).first;
  LS_ASSERT(std::find(it->second.begin(), it->second.end(), id) == it->second.end());
  it->second.push_back(id);
  return true;
}

bool PubSub::remove(Subscribers& subs, std::string_view name, ConnectionId id) {
  auto it = subs.find(name);
  if (it == subs.end()) return false;
  auto pos = std::find(it->second.begin(), it->second.end(), id);
  if (pos == it->second.end()) return false;
  it->second.erase(pos);
  if (it->second.empty()) subs.erase(it);
  return true;
}

bool NameSet::insert(std::string_view name) {
  auto it = std::lower_bound(names_.begin(), names_.end(), name);
  if (it != names_.end() && *it == name) return false;
  names_.emplace(it, name);
  return true;
}

bool NameSet::erase(std::string_view name) {
  auto it = std::lower_bound(names_.begin(), names_.end(), name);
  if (it == names_.end() || *it != name) return false;
  names_.erase(it);
  return true;
}

bool PubSub::subscribe(Client& client, std::string_view channel) {
  if (!client.subs.for_write().channels.insert(channel)) return false;
  return add(channels_, channel, client.id);
}

bool PubSub::psubscribe(Client& client, std::string_view pattern) {
  if (!client.subs.for_write().patterns.insert(pattern)) return false;
  return add(patterns_, pattern, client.id);
}

bool PubSub::ssubscribe(Client& client, std::string_view channel) {
  if (!client.subs.for_write().shard_channels.insert(channel)) return false;
  return add(shard_channels_, channel, client.id);
}

bool PubSub::sunsubscribe(Client& client, std::string_view channel) {
  if (!client.subs || !client.subs->shard_channels.erase(channel)) return false;
  bool removed = remove(shard_channels_, channel, client.id);
  LS_ASSERT(removed);
  return true;
}

bool PubSub::unsubscribe(Client& client, std::string_view channel) {
  if (!client.subs || !client.subs->channels.erase(channel)) return false;
  bool removed = remove(channels_, channel, client.id);
  LS_ASSERT(removed);
  return true;
}

bool PubSub::punsubscribe(Client& client, std::string_view pattern) {
  if (!client.subs || !client.subs->patterns.erase(pattern)) return false;
  bool removed = remove(patterns_, pattern, client.id);
  LS_ASSERT(removed);
  return true;
}

void PubSub::drop(Client& client) {
  if (!client.subs) return;
  for (const std::string& ch : client.subs->channels) remove(channels_, ch, client.id);
  for (const std::string& p : client.subs->patterns) remove(patterns_, p, client.id);
  for (const std::string& ch : client.subs->shard_channels) remove(shard_channels_, ch, client.id);
  client.subs.reset();
  LS_ASSERT(client.total_subscription_count() == 0);
}

void PubSub::clear() {
  channels_.clear();
  patterns_.clear();
  shard_channels_.clear();
}

int64_t PubSub::spublish(std::string_view channel, std::string_view message) {
  auto it = shard_channels_.find(channel);
  if (it == shard_channels_.end()) return 0;
  if (const auto& hook = server_.hooks().on_message; hook) {
    const Reply push =
        server_.outgoing(Reply::push({Reply::bulk("smessage"), Reply::bulk(channel), Reply::bulk(message)}));
    for (ConnectionId id : it->second) hook(id, push);
  }
  return static_cast<int64_t>(it->second.size());
}

int64_t PubSub::publish(std::string_view channel, std::string_view message) {
  int64_t receivers = 0;
  const auto& hook = server_.hooks().on_message;
  if (auto it = channels_.find(channel); it != channels_.end()) {
    // One message for all the channel's subscribers: the hook takes it by reference and copies
    // what it keeps, so building it per receiver only cost allocations.
    if (hook && !it->second.empty()) {
      const Reply push = server_.outgoing(
          Reply::push({Reply::bulk("message"), Reply::bulk(channel), Reply::bulk(message)}));
      for (ConnectionId id : it->second) hook(id, push);
    }
    receivers += static_cast<int64_t>(it->second.size());
  }
  for (const auto& [pattern, ids] : patterns_) {
    if (!glob_match(pattern, channel)) continue;
    if (hook && !ids.empty()) {
      const Reply push = server_.outgoing(Reply::push(
          {Reply::bulk("pmessage"), Reply::bulk(pattern), Reply::bulk(channel), Reply::bulk(message)}));
      for (ConnectionId id : ids) hook(id, push);
    }
    receivers += static_cast<int64_t>(ids.size());
  }
  LS_ASSERT(receivers >= 0);
  return receivers;
}

// ---- Commands ----------------------------------------------------------------------------

namespace {

// A (un)subscribe confirmation: a push, as Redis 7.0 sends it to RESP3 clients (RESP2: an
// array). Without a name (nothing to unsubscribe from) the name is a nil.
Reply notice(std::string_view kind, std::string_view name, size_t count) {
  return Reply::push(
      {Reply::bulk(kind), Reply::bulk(name), Reply::integer_of(static_cast<int64_t>(count))});
}

Reply notice_nil(std::string_view kind, size_t count) {
  return Reply::push(
      {Reply::bulk(kind), Reply::nil(), Reply::integer_of(static_cast<int64_t>(count))});
}

}  // namespace

std::vector<std::string> PubSub::active_channels(bool shard, std::string_view pattern, bool any) const {
  std::vector<std::string> out;
  for (const auto& [name, subs] : shard ? shard_channels_ : channels_) {
    if (!subs.empty() && (any || glob_match(pattern, name))) out.push_back(name);
  }
  return out;
}

int64_t PubSub::subscribers(bool shard, std::string_view channel) const {
  const Subscribers& subs = shard ? shard_channels_ : channels_;
  const auto it = subs.find(channel);
  return it == subs.end() ? 0 : static_cast<int64_t>(it->second.size());
}

void cmd_publish(Call& c) {
  int64_t receivers = c.srv.pubsub().publish(c.argv[1], c.argv[2]);
  // Redis propagates PUBLISH to replicas so that their subscribers get the message too.
  c.force_propagate = true;
  c.reply(Reply::integer_of(receivers));
}

void cmd_subscribe(Call& c) {
  for (size_t j = 1; j < c.argv.size(); j++) {
    c.srv.pubsub().subscribe(c.client, c.argv[j]);
    c.reply(notice("subscribe", c.argv[j], c.client.subscription_count()));
  }
}

void cmd_psubscribe(Call& c) {
  for (size_t j = 1; j < c.argv.size(); j++) {
    c.srv.pubsub().psubscribe(c.client, c.argv[j]);
    c.reply(notice("psubscribe", c.argv[j], c.client.subscription_count()));
  }
}

void cmd_unsubscribe(Call& c) {
  if (c.argv.size() == 1) {
    const NameSet& mine = c.client.subs.get().channels;
    if (mine.empty()) return c.reply(notice_nil("unsubscribe", c.client.subscription_count()));
    // Redis's order here is its dict's; the model's is sorted.
    std::vector<std::string> all(mine.begin(), mine.end());
    for (const std::string& ch : all) {
      c.srv.pubsub().unsubscribe(c.client, ch);
      c.reply(notice("unsubscribe", ch, c.client.subscription_count()));
    }
    return;
  }
  for (size_t j = 1; j < c.argv.size(); j++) {
    c.srv.pubsub().unsubscribe(c.client, c.argv[j]);
    c.reply(notice("unsubscribe", c.argv[j], c.client.subscription_count()));
  }
}

void cmd_punsubscribe(Call& c) {
  if (c.argv.size() == 1) {
    const NameSet& mine = c.client.subs.get().patterns;
    if (mine.empty()) return c.reply(notice_nil("punsubscribe", c.client.subscription_count()));
    std::vector<std::string> all(mine.begin(), mine.end());
    for (const std::string& p : all) {
      c.srv.pubsub().punsubscribe(c.client, p);
      c.reply(notice("punsubscribe", p, c.client.subscription_count()));
    }
    return;
  }
  for (size_t j = 1; j < c.argv.size(); j++) {
    c.srv.pubsub().punsubscribe(c.client, c.argv[j]);
    c.reply(notice("punsubscribe", c.argv[j], c.client.subscription_count()));
  }
}

// SPUBLISH, SSUBSCRIBE, SUNSUBSCRIBE: Redis 7.0's sharded pub/sub, which a node outside a cluster
// serves as one shard. Notices count the client's shard channels only.
void cmd_spublish(Call& c) {
  const int64_t receivers = c.srv.pubsub().spublish(c.argv[1], c.argv[2]);
  c.force_propagate = true;  // to replicas, as PUBLISH
  c.reply(Reply::integer_of(receivers));
}

void cmd_ssubscribe(Call& c) {
  // EXEC runs its queue with blocking denied, and SSUBSCRIBE (unlike SUBSCRIBE) respects that.
  if (c.client.multi) return c.error("ERR SSUBSCRIBE isn't allowed for a DENY BLOCKING client");
  for (size_t j = 1; j < c.argv.size(); j++) {
    c.srv.pubsub().ssubscribe(c.client, c.argv[j]);
    c.reply(notice("ssubscribe", c.argv[j], c.client.subs.get().shard_channels.size()));
  }
}

void cmd_sunsubscribe(Call& c) {
  if (c.argv.size() == 1) {
    const NameSet& mine = c.client.subs.get().shard_channels;
    if (mine.empty()) return c.reply(notice_nil("sunsubscribe", 0));
    std::vector<std::string> all(mine.begin(), mine.end());
    for (const std::string& ch : all) {
      c.srv.pubsub().sunsubscribe(c.client, ch);
      c.reply(notice("sunsubscribe", ch, c.client.subs.get().shard_channels.size()));
    }
    return;
  }
  for (size_t j = 1; j < c.argv.size(); j++) {
    c.srv.pubsub().sunsubscribe(c.client, c.argv[j]);
    c.reply(notice("sunsubscribe", c.argv[j], c.client.subs.get().shard_channels.size()));
  }
}

}  // namespace lockstep::redis
