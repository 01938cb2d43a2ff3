#include "sim/kernel/testing/fake_node_model.h"

#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

#include "sim/core/assert.h"

namespace lockstep::kernel::testing {
namespace {

using redis::Reply;

std::map<std::string, FakeNodeModel::ScriptFn>& scripts() {
  static std::map<std::string, FakeNodeModel::ScriptFn> by_key;  // body and sha1 both map
  return by_key;
}

std::string sha1_of(std::string_view body) {
  unsigned char d[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(body.data()), body.size(), d);
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : d) {
    out += kHex[b >> 4];
    out += kHex[b & 15];
  }
  return out;
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_write(const std::string& cmd) {
  return cmd == "SET" || cmd == "DEL" || cmd == "PEXPIRE" || cmd == "INCR";
}

class FakeSnapshot : public NodeSnapshot {
 public:
  std::map<std::string, std::pair<std::string, int64_t>> data;
};

}  // namespace

void FakeNodeModel::register_script(std::string_view body, ScriptFn fn) {
  scripts()[std::string(body)] = fn;
  scripts()[sha1_of(body)] = fn;
}

NodeModelFactory FakeNodeModel::factory() {
  return [](redis::NodeConfig config) -> std::unique_ptr<NodeModel> {
    return std::make_unique<FakeNodeModel>(std::move(config));
  };
}

FakeNodeModel::FakeNodeModel(redis::NodeConfig config) : config_(std::move(config)) {
  LS_ASSERT(config_.clock_us != nullptr);
}

int64_t FakeNodeModel::now_ms() const {
  if (frozen_ms_ >= 0) return frozen_ms_;
  const int64_t us = config_.clock_us();
  return us >= 0 ? us / 1000 : -((-us + 999) / 1000);
}

uint64_t FakeNodeModel::connect() {
  connections_.insert(next_conn_);
  return next_conn_++;
}

void FakeNodeModel::disconnect(uint64_t id) {
  connections_.erase(id);
  for (auto& [ch, subs] : channels_) subs.erase(id);
}

void FakeNodeModel::propagate(std::vector<std::string> effect) {
  if (config_.hooks.on_propagate) config_.hooks.on_propagate(effect, group_);
}

bool FakeNodeModel::expire_if_needed(const std::string& key) {
  auto it = data_.find(key);
  if (it == data_.end() || replica_) return false;
  if (it->second.expire_at_ms < 0 || it->second.expire_at_ms > now_ms()) return false;
  data_.erase(it);
  if (config_.hooks.on_expire) config_.hooks.on_expire(key, now_ms());
  propagate({"DEL", key});
  return true;
}

std::optional<std::string> FakeNodeModel::get(const std::string& key) {
  expire_if_needed(key);
  auto it = data_.find(key);
  if (it == data_.end()) return std::nullopt;
  return it->second.s;
}

void FakeNodeModel::set_value(const std::string& key, const std::string& value, int64_t px_ms) {
  Value v{value, px_ms >= 0 ? now_ms() + px_ms : -1};
  data_[key] = v;
  propagate({"SET", key, value});
  if (px_ms >= 0) propagate({"PEXPIREAT", key, std::to_string(v.expire_at_ms)});
}

int64_t FakeNodeModel::del(const std::string& key) {
  expire_if_needed(key);
  if (data_.erase(key) == 0) return 0;
  propagate({"DEL", key});
  return 1;
}

int64_t FakeNodeModel::pexpire(const std::string& key, int64_t ms) {
  expire_if_needed(key);
  auto it = data_.find(key);
  if (it == data_.end()) return 0;
  if (ms <= 0) {
    data_.erase(it);
    propagate({"DEL", key});
    return 1;
  }
  it->second.expire_at_ms = now_ms() + ms;
  propagate({"PEXPIREAT", key, std::to_string(it->second.expire_at_ms)});
  return 1;
}

int64_t FakeNodeModel::publish(const std::string& channel, const std::string& message) {
  int64_t n = 0;
  auto it = channels_.find(channel);
  if (it != channels_.end()) {
    for (uint64_t conn : it->second) {
      if (config_.hooks.on_message) {
        config_.hooks.on_message(
            conn, Reply::array({Reply::bulk("message"), Reply::bulk(channel), Reply::bulk(message)}));
      }
      ++n;
    }
  }
  propagate({"PUBLISH", channel, message});
  return n;
}

void FakeNodeModel::execute(uint64_t id, std::span<const std::string_view> argv,
                            std::vector<Reply>& out) {
  LS_ASSERT(connections_.count(id) == 1);
  ++group_;
  std::vector<std::string> args(argv.begin(), argv.end());
  if (args.empty()) {
    out.push_back(Reply::error("ERR empty command"));
    return;
  }
  out_ = &out;
  const std::string cmd = upper(args[0]);
  if (cmd == "SUBSCRIBE" || cmd == "UNSUBSCRIBE") {
    for (size_t i = 1; i < args.size(); ++i) {
      if (cmd == "SUBSCRIBE") {
        channels_[args[i]].insert(id);
      } else {
        channels_[args[i]].erase(id);
      }
      int64_t count = 0;
      for (auto& [ch, subs] : channels_) count += subs.count(id);
      out.push_back(Reply::array({Reply::bulk(cmd == "SUBSCRIBE" ? "subscribe" : "unsubscribe"),
                                  Reply::bulk(args[i]), Reply::integer_of(count)}));
    }
  } else if (cmd == "WAIT" && config_.hooks.on_wait) {
    config_.hooks.on_wait(id, std::stoll(args[1]), std::stoll(args[2]));
  } else if (replica_ && is_write(cmd)) {
    out.push_back(Reply::error("READONLY You can't write against a read only replica."));
  } else {
    out.push_back(run(id, args));
  }
  out_ = nullptr;
}

Reply FakeNodeModel::run(uint64_t id, const std::vector<std::string>& a) {
  const std::string cmd = upper(a[0]);
  if (cmd == "PING") return Reply::status("PONG");
  if (cmd == "GET" && a.size() == 2) {
    auto v = get(a[1]);
    return v ? Reply::bulk(*v) : Reply::nil();
  }
  if (cmd == "SET") return cmd_set(a);
  if (cmd == "DEL" && a.size() >= 2) {
    int64_t n = 0;
    for (size_t i = 1; i < a.size(); ++i) n += del(a[i]);
    return Reply::integer_of(n);
  }
  if (cmd == "EXISTS" && a.size() == 2) return Reply::integer_of(get(a[1]) ? 1 : 0);
  if (cmd == "PEXPIRE" && a.size() == 3) return Reply::integer_of(pexpire(a[1], std::stoll(a[2])));
  if (cmd == "PTTL" && a.size() == 2) {
    expire_if_needed(a[1]);
    auto it = data_.find(a[1]);
    if (it == data_.end()) return Reply::integer_of(-2);
    if (it->second.expire_at_ms < 0) return Reply::integer_of(-1);
    return Reply::integer_of(std::max<int64_t>(0, it->second.expire_at_ms - now_ms()));
  }
  if (cmd == "INCR" && a.size() == 2) {
    auto v = get(a[1]);
    const int64_t n = (v ? std::stoll(*v) : 0) + 1;
    auto it = data_.find(a[1]);
    const int64_t keep = it == data_.end() ? -1 : it->second.expire_at_ms;
    data_[a[1]] = Value{std::to_string(n), keep};
    propagate({"INCR", a[1]});
    return Reply::integer_of(n);
  }
  if (cmd == "PUBLISH" && a.size() == 3) return Reply::integer_of(publish(a[1], a[2]));
  if (cmd == "WAIT") return Reply::integer_of(0);
  if (cmd == "EVAL" || cmd == "EVALSHA") return cmd_eval(a, cmd == "EVALSHA");
  return Reply::error("ERR unknown command '" + a[0] + "' (fake node)");
}

Reply FakeNodeModel::cmd_set(const std::vector<std::string>& a) {
  if (a.size() < 3) return Reply::error("ERR wrong number of arguments for 'set' command");
  bool nx = false, xx = false;
  int64_t px = -1;
  for (size_t i = 3; i < a.size(); ++i) {
    const std::string opt = upper(a[i]);
    if (opt == "NX") nx = true;
    else if (opt == "XX") xx = true;
    else if ((opt == "PX" || opt == "EX") && i + 1 < a.size()) {
      px = std::stoll(a[++i]) * (opt == "EX" ? 1000 : 1);
      if (px <= 0) return Reply::error("ERR invalid expire time in 'set' command");
    } else {
      return Reply::error("ERR syntax error");
    }
  }
  const bool exists = get(a[1]).has_value();
  if ((nx && exists) || (xx && !exists)) return Reply::nil();
  set_value(a[1], a[2], px);
  return Reply::ok();
}

Reply FakeNodeModel::cmd_eval(const std::vector<std::string>& a, bool sha) {
  if (a.size() < 3) return Reply::error("ERR wrong number of arguments for 'eval' command");
  auto it = scripts().find(a[1]);
  if (it == scripts().end()) {
    return sha ? Reply::error("NOSCRIPT No matching script. Please use EVAL.")
               : Reply::error("ERR fake node: unregistered script");
  }
  const size_t n = std::stoul(a[2]);
  if (3 + n > a.size()) return Reply::error("ERR Number of keys can't be greater than number of args");
  std::vector<std::string> keys(a.begin() + 3, a.begin() + 3 + static_cast<long>(n));
  std::vector<std::string> args(a.begin() + 3 + static_cast<long>(n), a.end());
  frozen_ms_ = now_ms();
  Reply r = it->second(*this, keys, args);
  frozen_ms_ = -1;
  return r;
}

size_t FakeNodeModel::active_expire_cycle() {
  if (replica_) return 0;
  ++group_;
  std::vector<std::string> due;
  for (auto& [k, v] : data_) {
    if (v.expire_at_ms >= 0 && v.expire_at_ms <= now_ms()) due.push_back(k);
  }
  for (const std::string& k : due) expire_if_needed(k);
  return due.size();
}

void FakeNodeModel::apply_replicated(std::span<const std::string> e) {
  LS_ASSERT(!e.empty());
  const std::string cmd = upper(e[0]);
  if (cmd == "SET") {
    data_[e[1]] = Value{e[2], -1};
  } else if (cmd == "DEL") {
    data_.erase(e[1]);
  } else if (cmd == "PEXPIREAT") {
    auto it = data_.find(e[1]);
    if (it != data_.end()) it->second.expire_at_ms = std::stoll(e[2]);
  } else if (cmd == "INCR") {
    auto it = data_.find(e[1]);
    const int64_t n = (it == data_.end() ? 0 : std::stoll(it->second.s)) + 1;
    data_[e[1]].s = std::to_string(n);
  }
}

std::unique_ptr<NodeSnapshot> FakeNodeModel::snapshot() const {
  auto s = std::make_unique<FakeSnapshot>();
  for (auto& [k, v] : data_) s->data[k] = {v.s, v.expire_at_ms};
  return s;
}

void FakeNodeModel::restore(const NodeSnapshot& data) {
  data_.clear();
  for (auto& [k, v] : static_cast<const FakeSnapshot&>(data).data) data_[k] = Value{v.first, v.second};
}

void FakeNodeModel::reset() {
  data_.clear();
  channels_.clear();
  connections_.clear();
}

std::optional<redis::KeyDump> FakeNodeModel::inspect(std::string_view key) const {
  auto it = data_.find(std::string(key));
  if (it == data_.end()) return std::nullopt;
  redis::KeyDump d;
  d.type = "string";
  d.strings = {it->second.s};
  d.expire_at_ms = it->second.expire_at_ms;
  return d;
}

std::vector<std::string> FakeNodeModel::keys_sorted() const {
  std::vector<std::string> out;
  for (auto& [k, v] : data_) out.push_back(k);
  return out;
}

}  // namespace lockstep::kernel::testing
