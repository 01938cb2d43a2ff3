#include "harness/live/links.h"

#include <algorithm>
#include <cctype>

#include "sim/core/assert.h"

namespace lockstep::live {

using scenario::LinkTarget;

const std::string& Links::node_at(uint16_t port) const {
  static const std::string kNone;
  auto it = nodes_.find(port);
  return it == nodes_.end() ? kNone : it->second;
}

Links::WindowId Links::add(Window w) {
  w.id = next_id_++;
  windows_.push_back(std::move(w));
  return windows_.back().id;
}

Links::WindowId Links::add_delay(const LinkTarget& target, int64_t extra_us) {
  Window w;
  w.kind = Window::Kind::kDelay;
  w.target = target;
  w.value = extra_us;
  return add(std::move(w));
}

Links::WindowId Links::add_drop(const LinkTarget& target, int64_t loss_ppm) {
  Window w;
  w.kind = Window::Kind::kDrop;
  w.target = target;
  w.value = loss_ppm;
  return add(std::move(w));
}

Links::WindowId Links::add_partition(const std::vector<std::vector<std::string>>& groups, bool one_way) {
  Window w;
  w.kind = Window::Kind::kPartition;
  w.groups = groups;
  w.one_way = one_way;
  return add(std::move(w));
}

Links::WindowId Links::add_lose_reply(const std::string& client, std::string match, int64_t count,
                                      std::function<void()> on_exhausted) {
  Window w;
  w.kind = Window::Kind::kLoseReply;
  w.client = client;
  w.match = std::move(match);
  w.value = count;
  w.on_exhausted = std::move(on_exhausted);
  return add(std::move(w));
}

void Links::remove(WindowId id) {
  windows_.erase(std::remove_if(windows_.begin(), windows_.end(), [id](const Window& w) { return w.id == id; }),
                 windows_.end());
}

void Links::set_network(const scenario::NetworkSpec& network) {
  overrides_ = network.links;
  default_loss_ppm_ = network.defaults.loss_ppm;
}

const kernel::LinkSpec* Links::override_of(const std::string& from, const std::string& to) const {
  for (auto it = overrides_.rbegin(); it != overrides_.rend(); ++it) {
    if ((it->from == from && it->to == to) || (it->both_ways && it->from == to && it->to == from)) return &it->spec;
  }
  return nullptr;
}

bool Links::applies(const LinkTarget& t, const std::string& from, const std::string& to) {
  switch (t.kind) {
    case LinkTarget::Kind::kAll: return true;
    case LinkTarget::Kind::kProcess: return from == t.a || to == t.a;
    case LinkTarget::Kind::kDirected: return from == t.a && to == t.b;
    case LinkTarget::Kind::kBetween: return (from == t.a && to == t.b) || (from == t.b && to == t.a);
  }
  return false;
}

int Links::group_of(const Window& w, const std::string& process) {
  for (size_t g = 0; g < w.groups.size(); ++g) {
    if (std::find(w.groups[g].begin(), w.groups[g].end(), process) != w.groups[g].end()) return static_cast<int>(g);
  }
  return -1;
}

bool Links::partitioned(const std::string& from, const std::string& to) const {
  for (const Window& w : windows_) {
    if (w.kind != Window::Kind::kPartition) continue;
    const int gf = group_of(w, from);
    const int gt = group_of(w, to);
    if (gf >= 0 && gt >= 0 && (w.one_way ? (gf == 0 && gt == 1) : gf != gt)) return true;
  }
  return false;
}

bool Links::lost(const std::string& from, const std::string& to, Rng& rng) const {
  if (partitioned(from, to)) return true;
  for (const Window& w : windows_) {
    if (w.kind == Window::Kind::kDrop && applies(w.target, from, to)) {
      if (static_cast<int64_t>(rng.below(1'000'000)) < w.value) return true;
    }
  }
  const kernel::LinkSpec* spec = override_of(from, to);
  const uint32_t loss_ppm = spec != nullptr ? spec->loss_ppm : default_loss_ppm_;
  return loss_ppm > 0 && rng.below(1'000'000) < loss_ppm;
}

int64_t Links::extra_delay_us(const std::string& from, const std::string& to, Rng& rng) const {
  const kernel::LinkSpec* spec = override_of(from, to);
  int64_t extra = spec != nullptr ? spec->latency.draw(rng) : 0;
  for (const Window& w : windows_) {
    if (w.kind == Window::Kind::kDelay && applies(w.target, from, to)) extra += w.value;
  }
  return extra;
}

bool Links::take_lose_reply(const std::string& client, std::string_view command, const char* script) {
  for (Window& w : windows_) {
    if (w.kind != Window::Kind::kLoseReply || w.client != client || w.value <= 0) continue;
    const bool by_command = w.match.size() == command.size() &&
                            std::equal(command.begin(), command.end(), w.match.begin(), [](char a, char b) {
                              return std::toupper(static_cast<unsigned char>(a)) == std::toupper(static_cast<unsigned char>(b));
                            });
    const bool by_script = script != nullptr && w.match == script;
    if (!w.match.empty() && !by_command && !by_script) continue;
    if (--w.value == 0 && w.on_exhausted) {
      auto done = w.on_exhausted;
      done();
    }
    return true;
  }
  return false;
}

}  // namespace lockstep::live
