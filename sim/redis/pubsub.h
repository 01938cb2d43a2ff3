// Pub/sub (Redis's pubsub.c): channel and pattern subscriptions and message delivery.
//
// Deliveries leave the node through NodeHooks::on_message, one call per receiving connection.
// Order of deliveries for one PUBLISH: channel subscribers in the order they subscribed, then
// pattern subscribers by pattern (patterns sorted bytewise; Redis iterates a dict there), each
// pattern's subscribers in subscription order.
#ifndef LOCKSTEP_SIM_REDIS_PUBSUB_H_
#define LOCKSTEP_SIM_REDIS_PUBSUB_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "sim/redis/server.h"

namespace lockstep::redis {

class PubSub {
 public:
  explicit PubSub(Server& server) : server_(server) {}

  // Subscribes `client` to a channel (pattern). Returns true if it was not subscribed yet.
  bool subscribe(Client& client, std::string_view channel);
  bool psubscribe(Client& client, std::string_view pattern);
  // Unsubscribes; returns true if it was subscribed.
  bool unsubscribe(Client& client, std::string_view channel);
  bool punsubscribe(Client& client, std::string_view pattern);
  // Drops every subscription of a client (disconnect, RESET).
  void drop(Client& client);
  // Sharded pub/sub (SSUBSCRIBE): its own channels, no patterns, "smessage" deliveries.
  bool ssubscribe(Client& client, std::string_view channel);
  bool sunsubscribe(Client& client, std::string_view channel);
  // Delivers a message; returns the number of receivers (a client matching by channel and by
  // pattern counts twice, as in Redis).
  int64_t publish(std::string_view channel, std::string_view message);
  int64_t spublish(std::string_view channel, std::string_view message);
  // Subscriptions across all clients (for tests).
  size_t channel_count() const { return channels_.size(); }
  // PUBSUB CHANNELS / NUMSUB / NUMPAT: the channels with a subscriber (matching `pattern`
  // unless it is empty and `any`), a channel's subscriber count, the number of patterns.
  std::vector<std::string> active_channels(bool shard, std::string_view pattern, bool any) const;
  int64_t subscribers(bool shard, std::string_view channel) const;
  int64_t pattern_count() const { return static_cast<int64_t>(patterns_.size()); }
  void clear();

 private:
  using Subscribers = std::map<std::string, std::vector<ConnectionId>, std::less<>>;
  static bool add(Subscribers& subs, std::string_view name, ConnectionId id);
  static bool remove(Subscribers& subs, std::string_view name, ConnectionId id);

  Server& server_;
  Subscribers channels_;
  Subscribers patterns_;
  Subscribers shard_channels_;
};

}  // namespace lockstep::redis

#endif  // LOCKSTEP_SIM_REDIS_PUBSUB_H_
