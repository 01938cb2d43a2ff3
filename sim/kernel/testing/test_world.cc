#include "sim/kernel/testing/test_world.h"

#include <sstream>

#include "sim/core/assert.h"

namespace lockstep::kernel::testing {

TestWorld::TestWorld(const Options& o) : client_options(o.client), rng(o.seed) {
  net = std::make_unique<Network>(loop, rng);
  net->set_default_link(o.link);
  ctx.loop = &loop;
  ctx.net = net.get();
  ctx.rec = &rec;
  ctx.rng = &rng;
  cluster = std::make_unique<Cluster>(ctx);
  ctx.cluster = cluster.get();
  cluster->set_replication_lag(o.replication_lag);
  cluster->set_failover_detection_ms(o.failover_detection_ms);
  ProcessId next = 0;
  for (size_t shard_size : o.shard_sizes) {
    std::vector<NodeProcess*> shard;
    for (size_t i = 0; i < shard_size; ++i) {
      nodes.push_back(std::make_unique<NodeProcess>(ctx, next++, "node" + std::to_string(nodes.size()),
                                                    LocalClock(), o.node, FakeNodeModel::factory()));
      net->add_process(nodes.back().get());
      shard.push_back(nodes.back().get());
    }
    cluster->add_shard(shard);
  }
  for (size_t i = 0; i < o.clients; ++i) {
    clients.push_back(std::make_unique<ClientProcess>(ctx, next++, "c" + std::to_string(i + 1),
                                                      LocalClock(), client_options));
    net->add_process(clients.back().get());
    cluster->add_listener(clients.back().get());
  }
}

TestWorld::~TestWorld() {
  // Client coroutines reference the network: destroy clients first.
  clients.clear();
}

void TestWorld::at(TimeUs t, std::function<void()> fn) {
  actions_.push_back(std::move(fn));
  loop.at(t, this, actions_.size() - 1);
}

void TestWorld::on_event(uint64_t arg) { actions_[arg](); }

void TestWorld::run_until(TimeUs end) {
  Status s = loop.run_until(end, 10'000'000);
  LS_ASSERT(s.ok());
}

std::vector<nlohmann::json> TestWorld::lines(const std::string& type) const {
  std::vector<nlohmann::json> out;
  std::istringstream in(writer.text());
  std::string line;
  while (std::getline(in, line)) {
    nlohmann::json j = nlohmann::json::parse(line);
    if (type.empty() || j.value("type", "") == type) out.push_back(std::move(j));
  }
  return out;
}

std::optional<std::string> TestWorld::value(size_t node, const std::string& key) {
  auto d = nodes[node]->model().inspect(key);
  if (!d) return std::nullopt;
  return d->strings.at(0);
}

}  // namespace lockstep::kernel::testing
