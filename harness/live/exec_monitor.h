// ExecMonitor: each node's own execution order in a live run, read from a MONITOR connection per
// node (docs/live.md), so that live histories carry `exec` events as simulated ones do and the
// checker verifies them by execution order (fairness and quorum need it).
//
// redis-server feeds MONITOR every command it executes, in order, with its time and the client's
// address. The client knows what it sent on each connection (the command, the operation it
// serves, the script's name) and the reply; MONITOR knows the order. A client connection
// registers its local port here; each MONITOR line from that port is the connection's next
// command, in order. Lines from inside scripts ("lua") and from unknown ports (lockstep's own
// control connections) only advance the node's sequence number.
//
// It also subscribes to each node's expiry events (the servers run with notify-keyspace-events
// "Ex") and records them as `expire` events, at the run's time: the checker tells a lease that
// ran out from a lock taken away by them.
//
// A node's `seq` counts the commands MONITOR showed; `local_ms` is MONITOR's timestamp less the
// wall-clock time at the run's start, so node clocks read from about 0 as in a simulated run (a
// clock shim's offset shows). The exec event's `t` is that time less the node's clock offset (at
// most the time it was read): the moment the node ran the command, not the later one lockstep learned of it, so the
// live run records into memory and writes its history sorted by time at the end. When a reply arrives and its MONITOR line does not come within
// kWaitMs (a killed node, a lost line), the reply is delivered anyway and the history gets a
// node event "monitor_lost"; the checker then verifies that lock by search.
#ifndef LOCKSTEP_HARNESS_LIVE_EXEC_MONITOR_H_
#define LOCKSTEP_HARNESS_LIVE_EXEC_MONITOR_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/core/status.h"
#include "sim/core/time.h"
#include "sim/history/recorder.h"

namespace lockstep::live {

class LiveLoop;

// What MONITOR said of one command.
struct MonitorLine {
  uint64_t seq = 0;
  int64_t local_ms = 0;
  TimeUs t = 0;  // when the node ran it, in the run's time (MONITOR's timestamp)
};

class ExecMonitor {
 public:
  static constexpr int64_t kWaitMs = 200;
  using Sink = std::function<void(const MonitorLine&)>;

  // `offset_us(port, t)`: how far the clock of the node on `port` is ahead of real time at run
  // time t (its clock shim's offset; 0 for a node with a real clock).
  using OffsetFn = std::function<int64_t(uint16_t port, TimeUs t)>;
  ExecMonitor(LiveLoop& loop, history::Recorder& rec, OffsetFn offset_us);
  ~ExecMonitor();
  ExecMonitor(const ExecMonitor&) = delete;
  ExecMonitor& operator=(const ExecMonitor&) = delete;

  // Opens (or, after a restart, reopens) the MONITOR connection to node `name` on `port`.
  Status watch(const std::string& name, uint16_t port);
  // The node listening on `port` ("" if none).
  const std::string& node_at(uint16_t port) const;

  // A client connection from `client_port` to the node on `node_port`: its MONITOR lines go to
  // `sink`, in order, until remove().
  void add(uint16_t node_port, uint16_t client_port, Sink sink);
  void remove(uint16_t node_port, uint16_t client_port);

 private:
  class Watch;
  void on_line(uint16_t node_port, const std::string& line);
  void on_expired(uint16_t node_port, const std::string& key);

  LiveLoop& loop_;
  history::Recorder& rec_;
  OffsetFn offset_us_;
  std::map<uint16_t, std::vector<std::shared_ptr<Watch>>> watches_;  // by node port: MONITOR, expiries
  std::map<uint16_t, std::string> names_;
  std::map<uint16_t, uint64_t> seq_;  // by node port
  std::map<std::pair<uint16_t, uint16_t>, Sink> sinks_;
};

}  // namespace lockstep::live

#endif  // LOCKSTEP_HARNESS_LIVE_EXEC_MONITOR_H_
