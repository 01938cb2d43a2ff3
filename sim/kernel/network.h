// Network: the simulated network between processes, with TCP-like connections.
//
// A connection joins a client process to a server process (a client to a Redis node, a master to
// a replica) and has one channel per direction. A channel delivers in order: a message never
// overtakes an earlier one on the same channel (its delivery time is at least the previous
// one's). Latency is drawn per message from the link's distribution, from the channel's own Rng
// stream, so adding a connection never shifts another's draws.
//
// What a lost message means: it never arrives, and nothing else happens — the connection stays
// open and later messages still flow. The sender learns nothing; a client waiting for a reply
// times out (client options) and may retry, even though its command may have executed. A
// message is lost when the link's loss rate or an active `drop` fault says so (drawn at send
// time), or when an active partition blocks its direction at send time or at arrival. Close
// messages (a crashed peer) are never lost. The replication stream is handled by the node layer
// (it buffers while partitioned and never drops; see node_process.h).
//
// Faults are windows added and removed at run time: extra delay on some links, a drop rate on
// some links, partitions between groups of processes (symmetric or one-way), extra replication
// lag towards a replica.
#ifndef LOCKSTEP_SIM_KERNEL_NETWORK_H_
#define LOCKSTEP_SIM_KERNEL_NETWORK_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "sim/core/rng.h"
#include "sim/kernel/event_loop.h"
#include "sim/kernel/latency.h"
#include "sim/kernel/message.h"
#include "sim/kernel/process.h"

namespace lockstep::kernel {

// Latency and loss of one direction of a link.
struct LinkSpec {
  LatencyDist latency = LatencyDist::fixed(200);
  uint32_t loss_ppm = 0;
};

// Which directed links a delay or drop fault applies to.
struct LinkFilter {
  enum class Kind : uint8_t { kAll, kProcess, kDirected };
  Kind kind = Kind::kAll;
  ProcessId a = 0;  // kProcess: any link touching a; kDirected: from a
  ProcessId b = 0;  // kDirected: to b
  bool matches(ProcessId from, ProcessId to) const;
};

using WindowId = uint32_t;

// One side of a duplex connection and the server's per-connection state.
// How histories name a connection, from its two processes' names: built when an exec record
// needs it rather than kept per connection (B5 counts bytes per client).
enum class ConnName : uint8_t {
  kClient,    // the client's name: "c1"
  kPubSub,    // "c1/pubsub"
  kToServer,  // "node0->node1" (a replication stream)
};

struct Connection {
  ProcessId client = 0;  // the side that opened it
  ProcessId server = 0;
  ChannelId up = 0;      // client -> server
  ChannelId down = 0;    // server -> client
  // Server-side state, owned by the server process: its own connection id and the server
  // incarnation it belongs to.
  uint64_t server_conn = 0;
  uint32_t server_epoch = UINT32_MAX;
  bool server_open = false;
  ConnName naming = ConnName::kClient;
  uint32_t client_tag = 0;  // the client's own index for this connection
};

class Network : public EventHandler {
 public:
  static constexpr uint32_t kMaxConnections = 4'000'000;
  static constexpr uint32_t kMaxInFlight = 8'000'000;

  // `rng` is the run's root generator; channels derive named streams from it.
  Network(EventLoop& loop, const Rng& rng);
  ~Network() override;
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  // Registers a process. REQUIRES: ids are registered in order 0, 1, 2, ...
  void add_process(Process* process);
  Process& process(ProcessId id) const { return *processes_[id]; }
  size_t process_count() const { return processes_.size(); }

  void set_default_link(const LinkSpec& spec);
  // Overrides one direction of one link. REQUIRES: before any connection on it is opened.
  void set_link(ProcessId from, ProcessId to, const LinkSpec& spec);

  // Opens a connection. `label` names its channels' Rng streams ("c1/cmd@node0") and must be
  // unique; `naming` says how histories name it (ConnName). A replication connection is opened
  // by the master (the "client" side); its up channel carries the write stream with latency
  // `replication_lag` (caller-owned, must outlive the network) and is subject to
  // replication_lag faults, never to loss or drop faults.
  ConnId connect(ProcessId client, ProcessId server, std::string_view label, ConnName naming,
                 uint32_t client_tag, const LatencyDist* replication_lag = nullptr);
  Connection& connection(ConnId id) { return connections_[id]; }
  // How histories name connection `id` ("c1", "c1/pubsub", "node0->node1").
  std::string name(ConnId id) const;
  // The same name, written into `out` (whose capacity a caller may reuse).
  void name_into(ConnId id, std::string& out) const;
  const Connection& connection(ConnId id) const { return connections_[id]; }

  // The message pool. alloc() returns a cleared message's slot.
  uint32_t alloc();
  Message& msg(uint32_t slot) { return pool_[slot]; }
  void release(uint32_t slot);
  size_t in_flight() const { return pool_.size() - free_.size(); }

  // Sends message `slot` on connection `conn`, from the client (up) or the server (down).
  // The destination's handle_work runs with the slot as payload (deliver()); it must release it.
  // Returns false (and releases the slot) when the message is lost at send time.
  bool send(ConnId conn, bool up, uint32_t slot);
  // Fault windows. Each returns an id for remove().
  WindowId add_delay(const LinkFilter& filter, int64_t extra_us);
  WindowId add_drop(const LinkFilter& filter, uint32_t loss_ppm);
  // Extra lag on the replication stream towards `replica`.
  WindowId add_replication_lag(ProcessId replica, int64_t extra_us);
  // groups: processes in different groups cannot talk; processes in no group are unaffected.
  // one_way: only traffic from groups[0] to groups[1] is blocked. REQUIRES: 2+ groups
  // (exactly 2 for one_way), each process in at most one group.
  WindowId add_partition(const std::vector<std::vector<ProcessId>>& groups, bool one_way);
  // lose_reply: the next `count` replies to commands from `client` matching `match` (a command
  // name like "EVAL", or a script's name; empty: any) are lost after the command executed.
  // `on_exhausted` runs when the count is used up. Removing the window disarms what is left.
  WindowId add_lose_reply(ProcessId client, std::string match, int64_t count,
                          std::function<void()> on_exhausted);
  // Asked by a node before it replies: true (and one unit consumed) if the reply must be lost.
  bool take_lose_reply(ProcessId client, std::string_view command, const char* script);
  void remove(WindowId id);
  // Called after a partition is removed (the replication layer flushes its backlogs).
  void add_heal_listener(std::function<void()> listener);

  bool blocked(ProcessId from, ProcessId to) const;

  uint64_t messages_sent() const { return sent_; }
  uint64_t messages_lost() const { return lost_; }

  // A delivery's event argument: the message's slot, and its destination in the upper half.
  void on_event(uint64_t arg) override;
  void prefetch(uint64_t arg) const override;

 private:
  struct Channel {
    ProcessId from;
    ProcessId to;
    TimeUs last_delivery;
    const LinkSpec* spec;
    const LatencyDist* latency;  // spec->latency or the replication lag
    Rng rng;
    // A replication stream: its latency is the replication lag, not the link's (72 bytes a
    // channel instead of 80 with a flag; a client has four).
    bool replication() const { return latency != &spec->latency; }
  };
  struct Window {
    WindowId id;
    enum class Kind : uint8_t { kDelay, kDrop, kPartition, kReplicationLag, kLoseReply } kind;
    LinkFilter filter;
    int64_t extra_us = 0;
    uint32_t loss_ppm = 0;
    bool one_way = false;
    std::vector<int32_t> group_of;  // partition: group per process, -1 for none
    std::string match;              // lose_reply
    int64_t remaining = 0;          // lose_reply
    std::function<void()> on_exhausted;
  };

  const LinkSpec* link_spec(ProcessId from, ProcessId to);
  ChannelId open_channel(ProcessId from, ProcessId to, std::string_view label,
                         const LatencyDist* replication_lag);
  bool lost_at_send(Channel& ch);
  int64_t extra_delay(const Channel& ch) const;

  EventLoop& loop_;
  const Rng rng_;
  std::vector<Process*> processes_;
  // Each process's epoch, mirrored by the process (Process::mirror_epoch_to): a send reads it
  // here rather than from a process object that is not in the cache. A deque: slots never move.
  std::deque<uint32_t> epochs_;
  LinkSpec default_link_;
  std::map<std::pair<ProcessId, ProcessId>, LinkSpec> links_;
  // Deques: they grow in blocks, without the copy-and-double peaks of a vector (B5 memory).
  std::deque<Channel> channels_;
  std::deque<Connection> connections_;
  std::deque<Message> pool_;  // a deque: growing it never moves a message in use
  std::vector<uint32_t> free_;
  std::vector<Window> windows_;
  std::vector<std::function<void()>> heal_listeners_;
  WindowId next_window_ = 1;
  uint64_t sent_ = 0;
  uint64_t lost_ = 0;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_NETWORK_H_
