// ReplicationProxy: the replication link from a master to one replica of a live run, through
// lockstep (docs/live.md), so that the scenario's replication lag, replication_lag faults and
// partitions between the two are real.
//
// The replica is told `REPLICAOF 127.0.0.1 <proxy port>`; every connection it opens there is
// forwarded to the master. Bytes from the replica go up at once; bytes from the master (the
// replication stream) are held back, each read for lag_us() more than the last one, never
// reordered, and not released while blocked() (a partition: the simulator's replication stream
// also waits out a partition and never drops). When either side closes, both do, and the
// replica reconnects as it does to a real master.
#ifndef LOCKSTEP_HARNESS_LIVE_REPL_PROXY_H_
#define LOCKSTEP_HARNESS_LIVE_REPL_PROXY_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <boost/asio/ip/tcp.hpp>

#include "sim/core/status.h"

namespace lockstep::live {

class LiveLoop;

class ReplicationProxy {
 public:
  // `lag_us()`: the delay of the next chunk from the master; `blocked()`: a partition holds it.
  static Result<std::unique_ptr<ReplicationProxy>> start(LiveLoop& loop, uint16_t master_port,
                                                         std::function<int64_t()> lag_us,
                                                         std::function<bool()> blocked);
  ~ReplicationProxy();
  ReplicationProxy(const ReplicationProxy&) = delete;
  ReplicationProxy& operator=(const ReplicationProxy&) = delete;

  uint16_t port() const { return port_; }

 private:
  class Pipe;
  ReplicationProxy(LiveLoop& loop, uint16_t master_port, std::function<int64_t()> lag_us, std::function<bool()> blocked);
  void accept();

  LiveLoop& loop_;
  uint16_t master_port_;
  std::function<int64_t()> lag_us_;
  std::function<bool()> blocked_;
  boost::asio::ip::tcp::acceptor acceptor_;
  uint16_t port_ = 0;
  std::vector<std::weak_ptr<Pipe>> pipes_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace lockstep::live

#endif  // LOCKSTEP_HARNESS_LIVE_REPL_PROXY_H_
