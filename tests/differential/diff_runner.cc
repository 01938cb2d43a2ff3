#include "tests/differential/diff_runner.h"

#include <chrono>
#include <map>

#include "sim/core/assert.h"
#include "sim/redis/node.h"
#include "sim/resp/reply_parser.h"
#include "sim/resp/writer.h"
#include "tests/differential/compare.h"
#include "tests/differential/redis_client.h"
#include "tests/differential/redis_process.h"

namespace lockstep::differential {
namespace {

using redis::Reply;

constexpr std::string_view kBarrierToken = "~lockstep-barrier~";
constexpr size_t kMaxRepliesPerStep = 256;  // a step never legitimately produces more

int64_t now_us() {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch()).count();
}

bool is_barrier(const Reply& r) {
  if (r.type == Reply::Type::kBulk) return r.str == kBarrierToken;
  return r.type == Reply::Type::kArray && r.elements.size() == 2 &&
         r.elements[0] == Reply::bulk("pong") && r.elements[1] == Reply::bulk(kBarrierToken);
}

std::string upper(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return s;
}

// What a client of `protocol` reads for the model's typed reply: `lockstep serve`'s bytes for
// it, parsed back.
Reply as_read(const Reply& typed, int protocol) {
  resp::ReplyParser parser;
  parser.feed(resp::encode_reply(typed, resp::protocol_of(protocol)));
  Reply read;
  LS_ASSERT(parser.next(&read) == resp::ReplyStatus::kReply);
  return read;
}

std::string show_replies(const std::vector<Reply>& replies) {
  std::string s;
  for (size_t i = 0; i < replies.size(); i++) s += (i ? " | " : "") + describe(replies[i]);
  return s.empty() ? "(nothing)" : s;
}

}  // namespace

struct DiffRunner::Impl {
  std::unique_ptr<RedisProcess> server;
  std::unique_ptr<RedisClient> admin;
  std::unique_ptr<RedisClient> real[2];
  std::unique_ptr<redis::Node> node;
  redis::ConnectionId model_admin = 0;
  redis::ConnectionId model_conn[2] = {0, 0};
  std::map<redis::ConnectionId, std::vector<Reply>> pushes;  // model pub/sub deliveries
  uint64_t steps = 0;
  int protocol = 2;  // the connections' protocol at the start of the sequence

  Status reset();
  // The step's transcript on one connection of the model: pushes, replies, barrier reply.
  // `commands` (none for the other connection) are sent in one pipeline before the barrier.
  using Commands = std::vector<std::vector<std::string_view>>;
  std::vector<Reply> model_transcript(int conn, const Commands& commands);
  Result<std::vector<Reply>> real_transcript(int conn, const Commands& commands);
  bool unordered_applies(const Step& step);
  std::string compare_step(const Step& step, const std::vector<std::string>& resolved,
                           std::string& log);
};

Status DiffRunner::Impl::reset() {
  for (auto& c : real) c.reset();
  for (redis::ConnectionId& id : model_conn) {
    if (id != 0) node->disconnect(id);
    id = node->connect();
    if (protocol == 3) {
      const std::string_view hello[] = {"HELLO", "3"};
      LS_ASSERT(node->execute_one(id, hello).type == Reply::Type::kMap);
    }
  }
  pushes.clear();
  for (auto& c : real) {
    auto client = RedisClient::connect_any_protocol(server->port(), protocol);
    if (!client.ok()) return client.status();
    c = std::move(client.value());
  }
  for (std::initializer_list<std::string_view> cmd : {std::initializer_list<std::string_view>{"FLUSHALL"},
                                                      std::initializer_list<std::string_view>{"SCRIPT", "FLUSH"},
                                                      std::initializer_list<std::string_view>{"FUNCTION", "FLUSH"}}) {
    auto r = admin->command(cmd);
    if (!r.ok()) return r.status();
    std::vector<std::string_view> argv(cmd);
    node->execute_one(model_admin, argv);
  }
  return Status::ok_status();
}

std::vector<Reply> DiffRunner::Impl::model_transcript(int conn, const Commands& commands) {
  const redis::ConnectionId id = model_conn[conn];
  std::vector<Reply> out;
  for (const std::vector<std::string_view>& argv : commands) {
    std::vector<Reply> replies;
    node->execute(id, argv, replies);
    // Pushes produced while the command ran reached the client before its reply, as in Redis.
    for (Reply& r : pushes[id]) out.push_back(std::move(r));
    pushes[id].clear();
    for (Reply& r : replies) out.push_back(std::move(r));
  }
  for (Reply& r : pushes[id]) out.push_back(std::move(r));
  pushes[id].clear();
  std::vector<std::string_view> barrier = {"PING", kBarrierToken};
  node->execute(id, barrier, out);
  // Written in the protocol the connection speaks after the step (HELLO may have switched it).
  const int protocol = node->protocol(id);
  for (Reply& r : out) r = as_read(r, protocol);
  return out;
}

Result<std::vector<Reply>> DiffRunner::Impl::real_transcript(int conn, const Commands& commands) {
  RedisClient& c = *real[conn];
  for (const std::vector<std::string_view>& argv : commands) c.append(argv);
  std::vector<std::string_view> barrier = {"PING", kBarrierToken};
  c.append(barrier);
  std::vector<Reply> out;
  while (out.size() < kMaxRepliesPerStep) {
    auto r = c.read_reply();
    if (!r.ok()) return r.status();
    out.push_back(std::move(r.value()));
    if (is_barrier(out.back())) return out;
  }
  return Status::error("no barrier reply after " + std::to_string(kMaxRepliesPerStep) + " replies");
}

// Order is unspecified only for KEYS and for sets/hashes past their compact encodings.
bool DiffRunner::Impl::unordered_applies(const Step& step) {
  if (step.argv.size() < 2) return false;
  // KEYS and PUBSUB CHANNELS list a dict of Redis's (keys, channels) in its hash order.
  if (upper(step.argv[0]) == "KEYS" || upper(step.argv[0]) == "PUBSUB") return true;
  auto enc = admin->command({"OBJECT", "ENCODING", step.argv[1]});
  if (!enc.ok() || enc.value().type != Reply::Type::kBulk) return false;
  return enc.value().str != "listpack" && enc.value().str != "intset";
}

std::string DiffRunner::Impl::compare_step(const Step& step, const std::vector<std::string>& resolved,
                                           std::string& log) {
  Commands commands = {std::vector<std::string_view>(resolved.begin(), resolved.end())};
  for (const std::vector<std::string>& next : step.then) commands.emplace_back(next.begin(), next.end());
  const int x = step.conn;
  const int y = 1 - x;
  std::vector<Reply> mx = model_transcript(x, commands);
  std::vector<Reply> my = model_transcript(y, {});
  auto rx = real_transcript(x, commands);
  if (!rx.ok()) return "redis-server connection failed: " + rx.status().message();
  auto ry = real_transcript(y, {});
  if (!ry.ok()) return "redis-server connection failed: " + ry.status().message();
  steps++;
  CompareRule rule = step.rule;
  // A dropped argument (wrong-arity mutation) can turn "UNSUBSCRIBE ch" into an unsubscribe-all.
  if (resolved.size() == 1 && (upper(resolved[0]) == "UNSUBSCRIBE" || upper(resolved[0]) == "PUNSUBSCRIBE")) {
    rule = CompareRule::kUnsubscribeAll;
  }
  if ((rule == CompareRule::kUnordered || rule == CompareRule::kUnorderedPairs) && !unordered_applies(step)) {
    rule = CompareRule::kExact;
  }
  // The barrier's reply (last) is always compared exactly; the step's replies by its rule.
  bool same = mx.size() == rx.value().size() && transcripts_match(my, ry.value(), CompareRule::kExact) &&
              !mx.empty() && mx.back() == rx.value().back();
  if (same) {
    same = transcripts_match(std::vector<Reply>(mx.begin(), mx.end() - 1),
                             std::vector<Reply>(rx.value().begin(), rx.value().end() - 1), rule);
  }
  Step shown = step;
  shown.argv = resolved;
  log += "  " + show_step(shown) + "\n      model: " + show_replies(mx) +
         "\n      redis: " + show_replies(rx.value()) + "\n";
  if (!my.empty() && (my.size() > 1 || ry.value().size() > 1 || !same)) {
    log += "      (conn" + std::to_string(y) + " model: " + show_replies(my) +
           "; redis: " + show_replies(ry.value()) + ")\n";
  }
  return same ? "" : "MISMATCH at the last step above";
}

Result<std::unique_ptr<DiffRunner>> DiffRunner::create() {
  auto impl = std::make_unique<Impl>();
  auto server = RedisProcess::start();
  if (!server.ok()) return server.status();
  impl->server = std::move(server.value());
  auto admin = RedisClient::connect(impl->server->port());
  if (!admin.ok()) return admin.status();
  impl->admin = std::move(admin.value());
  // The model here is a bare Node that only expires keys lazily (serve and the simulator drive
  // its active expiry); with Redis's 10 Hz cycle on, a key set already expired (SET ... PXAT 1)
  // was sometimes gone from DBSIZE on Redis only.
  auto off = impl->admin->command({"DEBUG", "SET-ACTIVE-EXPIRE", "0"});
  if (!off.ok()) return off.status();
  if (off.value() != Reply::status("OK")) {
    return Status::error("redis-server refused DEBUG SET-ACTIVE-EXPIRE 0: " + redis::describe(off.value()));
  }
  redis::NodeConfig config;
  config.clock_us = now_us;
  config.typed_replies = true;  // written per connection protocol, as `lockstep serve` does
  Impl* raw = impl.get();
  config.hooks.on_message = [raw](redis::ConnectionId id, const Reply& message) {
    raw->pushes[id].push_back(message);
  };
  impl->node = std::make_unique<redis::Node>(std::move(config));
  impl->model_admin = impl->node->connect();
  return std::unique_ptr<DiffRunner>(new DiffRunner(std::move(impl)));
}

DiffRunner::DiffRunner(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DiffRunner::~DiffRunner() = default;

uint64_t DiffRunner::steps_run() const { return impl_->steps; }

std::string DiffRunner::run(const std::vector<Step>& steps, int protocol) {
  LS_ASSERT(!steps.empty());
  LS_ASSERT(protocol == 2 || protocol == 3);
  impl_->protocol = protocol;
  if (Status s = impl_->reset(); !s.ok()) return "cannot reset: " + s.message();
  std::string log = "  (connections start in RESP" + std::to_string(protocol) + ")\n";
  for (const Step& step : steps) {
    LS_ASSERT(step.conn == 0 || step.conn == 1);
    const int64_t now_ms = now_us() / 1000;
    std::vector<std::string> resolved;
    for (const std::string& a : step.argv) resolved.push_back(resolve_placeholders(a, now_ms));
    const std::string verdict = impl_->compare_step(step, resolved, log);
    if (!verdict.empty()) return log + verdict;
  }
  return "";
}

}  // namespace lockstep::differential
