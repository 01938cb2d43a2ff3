// NodeProcess: one Redis node as a simulated process.
//
// It hosts a NodeModel whose clock is the process's local clock, and serves requests arriving
// over the network in arrival order, one at a time (a node is single-threaded: a command is
// atomic). Every command a client sent is recorded as an `exec` history event with a per-node
// sequence number that only grows (across restarts too); keys an algorithm declared are recorded
// as `state` events after it; expiries (lazy or by the active cycle, which runs every
// active_expire_interval_ms of local time) and pub/sub traffic are recorded as they happen.
//
// Lifecycle: a crash loses everything in memory and in flight; a restart keeps what the
// persistence mode kept — none (empty), aof-always (every write), aof-everysec (the state at the
// last once-per-second fsync of local time), rdb (the state at the last snapshot, every
// rdb_interval_ms of local time). What a restart lost is recorded as `data_loss`.
//
// Blocking pops: a BLPOP/BRPOP that finds nothing blocks its connection (its next requests wait,
// as for WAIT) until a later command's push serves it or its timeout passes on the node's local
// clock; it is recorded as executed when it is answered.
//
// Replication: a master sends each command's write effects, as one atomic message, over a
// replication connection to each replica, with the topology's lag distribution. While a
// partition separates them the master keeps the stream in a backlog and sends it when the
// partition heals (a partial resync), so the stream itself never loses a write. Replicas apply
// effects and acknowledge their offset; WAIT is answered from those acknowledgements. A replica
// that (re)connects to a master — after a restart, a promotion or a demotion — does a full
// resync: it takes the master's dataset as it is at that moment.
#ifndef LOCKSTEP_SIM_KERNEL_NODE_PROCESS_H_
#define LOCKSTEP_SIM_KERNEL_NODE_PROCESS_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/kernel/node_model.h"
#include "sim/kernel/process.h"
#include "sim/kernel/sim_context.h"

namespace lockstep::kernel {

enum class Persistence : uint8_t { kNone, kAofAlways, kAofEverysec, kRdb };
std::string_view to_string(Persistence p);

struct NodeOptions {
  Persistence persistence = Persistence::kNone;
  int64_t rdb_interval_ms = 60'000;            // kRdb: snapshot period (local time)
  int64_t active_expire_interval_ms = 100;     // Redis's hz 10
  uint64_t lua_instruction_budget = 100'000'000;
};

class NodeProcess : public Process {
 public:
  // Requests a blocked (WAIT) connection may queue, and effects one backlog may hold.
  static constexpr size_t kMaxQueuedPerConnection = 100'000;
  static constexpr size_t kMaxBacklog = 1'000'000;

  NodeProcess(SimContext& ctx, ProcessId id, std::string name, LocalClock clock,
              const NodeOptions& options, const NodeModelFactory& factory);
  ~NodeProcess() override;

  NodeModel& model() { return *model_; }
  const NodeOptions& options() const { return options_; }
  bool is_master() const { return master_ == nullptr; }
  NodeProcess* master() const { return master_; }
  // Replication offset: effects produced (master) or applied (replica).
  uint64_t offset() const { return offset_; }
  // Replicas currently attached, in attach order.
  std::vector<NodeProcess*> replicas() const;

  // Topology (driven by Cluster). attach_replica makes `replica` follow this master and
  // resync; become_master detaches this node from its master.
  void attach_replica(NodeProcess* replica);
  void detach_replica(NodeProcess* replica);
  void become_master();

  // Faults. crash_node records `crashed`; restart_node restores per the persistence mode and
  // records `restarted` and, when record_loss (the node comes back as a master, so what it lost
  // is gone), `data_loss` for every key that differs from before the crash.
  void crash_node();
  void restart_node(bool record_loss);
  // Replaces this replica's data with its master's (a full resync). REQUIRES: a replica.
  void resync();

  // The replication backlog towards replicas no longer partitioned away is sent now.
  void flush_backlogs();

  uint64_t commands_executed() const { return seq_; }

 protected:
  void handle_work(uint64_t slot) override;
  void handle_timer(uint64_t tag) override;
  void drop_work(uint64_t slot) override;
  void on_crash() override;

 private:
  struct ReplicaLink {
    NodeProcess* replica;
    ConnId conn;
    uint64_t acked = 0;
    std::deque<uint32_t> backlog;  // message slots not yet sent (partitioned)
  };
  struct PendingWait {
    uint64_t id;
    ConnId conn;
    uint32_t request_slot;
    uint64_t target;
    int64_t numreplicas;
  };
  struct Publish {
    std::string channel;
    std::string message;
    int64_t receivers;
  };

  redis::NodeConfig make_config();
  void start_timers();
  // Requests.
  void on_request(uint32_t slot);
  void execute(uint32_t slot);
  void reply(ConnId conn, uint64_t request_id, redis::Reply reply);
  // Records the exec of the request in `slot`: answered with `reply`, or `blocked` (no reply yet).
  void record_exec(uint32_t slot, const redis::Reply* reply, bool blocked = false);
  // True when a lose_reply fault eats this request's reply.
  bool lose_reply(uint32_t slot);
  void record_publishes();
  void unblock(ConnId conn);
  uint64_t& server_conn(ConnId conn);
  // Hooks.
  void on_message_hook(uint64_t server_conn, const redis::Reply& message);
  void on_propagate_hook(std::span<const std::string> effect);
  void on_wait_hook(int64_t numreplicas, int64_t timeout_ms);
  void on_block_hook(int64_t deadline_ms);
  // Answers the blocked pops the model has served or timed out (on_unblock), in that order:
  // each is recorded as executed now, replied to, and its connection's queued requests run.
  void answer_unblocked();
  // Replication (node_replication.cc).
  void flush_effects();
  void send_to_replica(ReplicaLink& link, uint32_t slot);
  void on_replicate(uint32_t slot);
  void on_ack(uint32_t slot);
  int64_t acked_count(uint64_t target) const;
  void check_waits();
  void answer_wait(size_t index);
  ConnId open_replication(NodeProcess* replica);
  void persist_tick();
  std::vector<std::string> diff_keys(const std::map<std::string, std::optional<redis::KeyDump>>& before);
  std::map<std::string, std::optional<redis::KeyDump>> dump_all();

  SimContext& ctx_;
  NodeOptions options_;
  std::unique_ptr<NodeModel> model_;
  std::unique_ptr<NodeSnapshot> durable_;  // what persistence kept
  bool dirty_ = false;                     // writes since the last durable snapshot
  uint64_t seq_ = 0;
  // Request context while the model runs a command.
  uint32_t current_slot_ = UINT32_MAX;
  bool wait_taken_ = false;
  std::vector<redis::Reply> replies_;
  redis::LineCounts line_counts_;  // coverage: where the script being run counts its lines
  std::vector<Publish> publishes_;
  std::vector<std::string> pending_effects_;  // flat: count, args..., count, args...
  std::string conn_name_;  // record_exec's scratch: the connection's name, capacity reused
  // The network connection of each model connection id. The model hands out increasing ids,
  // so slots indexed by id - first_ take 4 bytes a connection where a hash map took about 38
  // (B5: a node serves two connections per client).
  class ConnIndex {
   public:
    // REQUIRES: sconn is greater than every id added since the last clear().
    void add(uint64_t sconn, ConnId conn);
    void erase(uint64_t sconn);
    // The open connection with model id `sconn`, or null.
    const ConnId* find(uint64_t sconn) const;
    void clear();

   private:
    static constexpr ConnId kNone = UINT32_MAX;
    uint64_t first_ = 0;
    std::vector<ConnId> conns_;
  };
  ConnIndex conn_of_server_;
  std::map<ConnId, std::deque<uint32_t>> blocked_;        // connections inside WAIT or BLPOP
  std::map<ConnId, uint32_t> pops_;  // connections inside BLPOP/BRPOP: their request's slot
  std::deque<std::pair<uint64_t, redis::Reply>> unblocked_;  // late replies to answer (server conn)
  bool pop_blocked_ = false;  // the command being run blocked its connection (BLPOP)
  bool answering_ = false;    // inside answer_unblocked
  std::vector<PendingWait> waits_;
  uint64_t next_wait_ = 1;
  // Replication.
  NodeProcess* master_ = nullptr;
  ConnId master_conn_ = UINT32_MAX;
  std::vector<ReplicaLink> links_;
  uint64_t offset_ = 0;
  uint32_t link_serial_ = 0;
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_NODE_PROCESS_H_
