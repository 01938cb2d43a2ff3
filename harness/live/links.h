// Links: the faults on the client↔node links of a live run (docs/live.md) — lockstep's proxy on
// each link it owns. The client side of every connection to a node is lockstep's own, so each
// connection passes its requests and replies through here, with the simulator's semantics
// (sim/kernel/network.h): a message that crosses an active partition, or that a drop rate
// draws, is lost (the connection stays open, the sender learns nothing, a waiting client times
// out); a delay adds latency without reordering; lose_reply swallows the next replies to a
// client's matching commands (after the node ran them). The scenario's standing link settings
// (network.loss_ppm, network.links) hold for the whole run the same way.
//
// It also names the nodes by port, for the connections' names in exec events.
#ifndef LOCKSTEP_HARNESS_LIVE_LINKS_H_
#define LOCKSTEP_HARNESS_LIVE_LINKS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario/scenario.h"
#include "sim/core/rng.h"

namespace lockstep::live {

class Links {
 public:
  using WindowId = uint64_t;

  void set_node(uint16_t port, const std::string& name) { nodes_[port] = name; }
  // The node listening on `port` ("" if none).
  const std::string& node_at(uint16_t port) const;

  WindowId add_delay(const scenario::LinkTarget& target, int64_t extra_us);
  WindowId add_drop(const scenario::LinkTarget& target, int64_t loss_ppm);
  WindowId add_partition(const std::vector<std::vector<std::string>>& groups, bool one_way);
  // `on_exhausted` runs when the last of `count` replies was swallowed.
  WindowId add_lose_reply(const std::string& client, std::string match, int64_t count,
                          std::function<void()> on_exhausted);
  void remove(WindowId id);

  // The scenario's standing settings, in force for the whole run: a link override's latency is
  // drawn per message and added to the loopback's own (the default latency is the loopback's);
  // its loss rate, or the default one on every other link, loses messages as a drop does. As in
  // simulation, a later override of the same link replaces an earlier one.
  void set_network(const scenario::NetworkSpec& network);

  // Whether a message sent now from process `from` to process `to` is lost (a partition blocks
  // it, or a drop rate draws it from `rng`).
  bool lost(const std::string& from, const std::string& to, Rng& rng) const;
  // Whether an active partition blocks messages from `from` to `to` now (no drop draws).
  bool partitioned(const std::string& from, const std::string& to) const;
  // The extra latency active delays and a link override (drawn from `rng`) add to it.
  int64_t extra_delay_us(const std::string& from, const std::string& to, Rng& rng) const;
  // Whether the reply to `client`'s command (its name, or its script's) is swallowed; counts it.
  bool take_lose_reply(const std::string& client, std::string_view command, const char* script);

 private:
  struct Window {
    enum class Kind : uint8_t { kDelay, kDrop, kPartition, kLoseReply };
    WindowId id = 0;
    Kind kind = Kind::kDelay;
    scenario::LinkTarget target;
    int64_t value = 0;  // delay: extra µs; drop: loss ppm; lose_reply: replies left
    std::vector<std::vector<std::string>> groups;  // partition
    bool one_way = false;
    std::string client;  // lose_reply
    std::string match;
    std::function<void()> on_exhausted;
  };
  static bool applies(const scenario::LinkTarget& t, const std::string& from, const std::string& to);
  static int group_of(const Window& w, const std::string& process);
  WindowId add(Window w);

  // The override of the link from `from` to `to`, or null.
  const kernel::LinkSpec* override_of(const std::string& from, const std::string& to) const;

  std::map<uint16_t, std::string> nodes_;
  std::vector<scenario::LinkSpec> overrides_;
  uint32_t default_loss_ppm_ = 0;
  std::vector<Window> windows_;
  WindowId next_id_ = 1;
};

}  // namespace lockstep::live

#endif  // LOCKSTEP_HARNESS_LIVE_LINKS_H_
