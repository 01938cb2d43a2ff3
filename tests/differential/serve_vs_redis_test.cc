// `lockstep serve` held to redis-server byte for byte: the same raw requests go to both over
// TCP and the raw reply bytes must be identical, including protocol errors and the closing of
// the connection after them, inline requests, pipelines, QUIT and pub/sub.
//
// Each request stream is followed by a barrier ("PING ~done~" as a multibulk request); the
// replies are read until the barrier's reply or until the server closes the connection.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <thread>

#include "cli/serve/model_backend.h"
#include "cli/serve/raw_client_test_util.h"
#include "cli/serve/server.h"
#include "tests/differential/redis_client.h"
#include "tests/differential/redis_process.h"

namespace lockstep::differential {
namespace {

using serve::testing::RawClient;

constexpr char kBarrier[] = "*2\r\n$4\r\nPING\r\n$6\r\n~done~\r\n";
constexpr char kBarrierReply[] = "$6\r\n~done~\r\n";
constexpr int kReadTimeoutMs = 3000;

struct Servers {
  std::unique_ptr<RedisProcess> redis;
  std::unique_ptr<serve::Server> serve;
  std::thread thread;
  std::string error;

  Servers() {
    auto r = RedisProcess::start();
    if (!r.ok()) {
      error = r.status().message();
      return;
    }
    redis = std::move(r.value());
    serve::ServeOptions o;
    o.port = 0;
    o.backend = serve::model_backend_factory();
    auto s = serve::Server::create(std::move(o));
    if (!s.ok()) {
      error = s.status().message();
      return;
    }
    serve = std::move(s.value());
    thread = std::thread([this] { serve->run(false); });
  }
  ~Servers() {
    if (serve) serve->stop();
    if (thread.joinable()) thread.join();
  }
  void flush() {
    for (uint16_t port : {redis->port(), serve->ports()[0]}) {
      RawClient c(port);
      c.send("FLUSHALL\r\nSCRIPT FLUSH\r\n");
      c.read(10, kReadTimeoutMs);
    }
  }
};

Servers& servers() {
  static Servers s;
  return s;
}

// The bytes a server sends back for `request` followed by the barrier, and whether it closed.
std::string round_trip(uint16_t port, const std::string& request) {
  RawClient c(port);
  if (!c.connected()) return "<cannot connect>";
  c.send(request + kBarrier);
  std::string out;
  while (!c.closed()) {
    std::string more = c.read(1, kReadTimeoutMs);
    if (more.empty()) break;
    out += more;
    if (out.size() >= sizeof(kBarrierReply) - 1 &&
        out.compare(out.size() - (sizeof(kBarrierReply) - 1), std::string::npos, kBarrierReply) == 0) {
      return out;
    }
  }
  return out + (c.closed() ? "<closed>" : "<timeout>");
}

std::string printable(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '\r') o += "\\r";
    else if (c == '\n') o += "\\n";
    else if (static_cast<unsigned char>(c) < 32) o += "\\x" + std::to_string(static_cast<unsigned char>(c));
    else o += c;
  }
  return o;
}

void expect_same(const std::string& request) {
  Servers& s = servers();
  ASSERT_TRUE(s.error.empty()) << s.error;
  s.flush();
  const std::string real = round_trip(s.redis->port(), request);
  const std::string ours = round_trip(s.serve->ports()[0], request);
  EXPECT_EQ(printable(ours), printable(real)) << "request: " << printable(request);
}

TEST(ServeVsRedis, ProtocolErrors) {
  for (const char* r : {"*x\r\n", "*1\r\nx\r\n", "*1\r\n$x\r\n", "*1\r\n$-1\r\n", "*2147483648\r\n",
                        "PING \"a\r\n", "PING \"a\"b\r\n", "*1\r\n\r\n", "*1\r\n\n\r\n", "*\r\n", "*01\r\n",
                        "*-0\r\n", "*1\r\n$536870913\r\n", "PING\r\n*x\r\nPING\r\n", "*1 \r\n$4\r\nPING\r\n",
                        "*1\r\n$4 \r\nPING\r\n", "*2\r\n$4\r\necho\r\n$01\r\na\r\n", "*1\r\n$+4\r\nPING\r\n"}) {
    expect_same(r);
  }
  expect_same(std::string(70000, 'x'));
  expect_same("*" + std::string(70000, '1'));
  expect_same("*1\r\n$" + std::string(70000, '1'));
}

TEST(ServeVsRedis, OddButValidRequests) {
  for (const char* r : {"*-1\r\nPING\r\n", "*0\r\nPING\r\n", "$1\r\n", "PING 'a'\r\n", "\r\n\n   \r\nPING\r\n",
                        "echo \"\\x41\\n\"\r\n", "*1\r\n$4\r\nPINGxxPING\r\n", "*1\r\n$4\r\nPING\n\n",
                        "*1\r\n$0\r\n\r\n", "QUIT extra\r\nPING\r\n", "*1\r\n$4\r\nquit\r\nPING\r\n",
                        "nosuchcommand a b\r\n", "ping\r\nPiNg hello\r\n"}) {
    expect_same(r);
  }
}

TEST(ServeVsRedis, CommandsAndScripts) {
  for (const char* r :
       {"SET k v\r\nGET k\r\nHSET h f v\r\nHGET h f\r\nGET h\r\n",
        "RPUSH l a b c\r\nLRANGE l 0 -1\r\nLPOP l 5\r\nLPOP l 5\r\n",
        "EVAL \"return {1,2,{3,'x'},nil,4}\" 0\r\nEVAL \"return {ok='fine'}\" 0\r\n",
        "EVAL \"return redis.call('nosuch')\" 0\r\nEVAL \"return (\" 0\r\n",
        "SCRIPT LOAD \"return 1\"\r\nEVALSHA e0e1f9fabfc9d4800c877a703b823ac0578ff8db 0\r\n",
        "EVALSHA 0000000000000000000000000000000000000000 0\r\n",
        "SUBSCRIBE a b\r\nPING\r\nGET k\r\nUNSUBSCRIBE\r\n",
        "INCR k\r\nSET k abc\r\nINCR k\r\nEXPIRE k 9223372036854775807\r\n"}) {
    expect_same(r);
  }
}

// Random streams of protocol fragments: whatever they parse to, both servers answer the same.
RC_GTEST_PROP(ServeVsRedis, RandomFragmentStreams, ()) {
  const auto pieces = *rc::gen::resize(30, rc::gen::container<std::vector<std::string>>(rc::gen::element<std::string>(
      "*", "$", "\r\n", "\r", "\n", "1", "2", "-1", "0", "x", " ", "\"", "'", "\\", "PING", "ECHO",
      "*2\r\n", "$4\r\n", "$1\r\n", "abc", "GET", "SET")));
  std::string stream;
  for (const auto& p : pieces) stream += p;
  Servers& s = servers();
  RC_ASSERT(s.error.empty());
  s.flush();
  const std::string real = round_trip(s.redis->port(), stream);
  const std::string ours = round_trip(s.serve->ports()[0], stream);
  RC_ASSERT(printable(ours) == printable(real));
}

}  // namespace
}  // namespace lockstep::differential
