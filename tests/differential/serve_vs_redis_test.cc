// `lockstep serve` held to redis-server byte for byte: the same raw requests go to both over
// TCP and the raw reply bytes must be identical, including protocol errors and the closing of
// the connection after them, inline requests, pipelines, QUIT and pub/sub.
//
// The client sends the request bytes, then half-closes its side (shutdown(SHUT_WR)); both
// servers answer what they can parse and close the connection, and everything received until
// the close is compared.
#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <sstream>
#include <thread>

#include "cli/serve/model_backend.h"
#include "cli/serve/raw_client_test_util.h"
#include "cli/serve/server.h"
#include "tests/differential/redis_client.h"
#include "tests/differential/redis_process.h"

namespace lockstep::differential {
namespace {

using serve::testing::RawClient;

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
    // OpenSSL (the model's SHA-1) keeps per-thread state that only OPENSSL_thread_stop frees.
    thread = std::thread([this] {
      serve->run(false);
      OPENSSL_thread_stop();
    });
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

Servers* g_servers = nullptr;

Servers& servers() {
  if (g_servers == nullptr) g_servers = new Servers;
  return *g_servers;
}

// Stops the servers when the tests are over, before the process exits (and before the leak
// checker of sanitizer builds looks), rather than in a static destructor.
class StopServers : public ::testing::Environment {
 public:
  void TearDown() override {
    delete g_servers;
    g_servers = nullptr;
  }
};
const auto* const kStopServers = ::testing::AddGlobalTestEnvironment(new StopServers);

// The bytes a server sends back for `request` before it closes the connection.
std::string round_trip(uint16_t port, const std::string& request) {
  RawClient c(port);
  if (!c.connected()) return "<cannot connect>";
  c.send(request);
  c.shutdown_write();
  std::string out = c.read_to_close(kReadTimeoutMs);
  return out + (c.closed() ? "" : "<no close>");
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
  // Over 64 KiB without a line end (both servers read 16 KiB at a time).
  expect_same(std::string(100000, 'x'));
  expect_same("*" + std::string(100000, '1'));
  expect_same("*1\r\n$" + std::string(100000, '1'));
  // A long line whose end arrives with the bytes that cross 64 KiB is accepted by both.
  expect_same("ECHO " + std::string(70000, 'x') + "\r\nPING\r\n");
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
        "SUBSCRIBE a b\r\nPING\r\nGET k\r\nUNSUBSCRIBE a\r\nPSUBSCRIBE x*\r\nUNSUBSCRIBE\r\n",
        "INCR k\r\nSET k abc\r\nINCR k\r\nEXPIRE k 9223372036854775807\r\n"}) {
    expect_same(r);
  }
}

// Random streams of protocol fragments: whatever they parse to, both servers answer the same.
// Fragments never join into a command outside the model's list (e.g. "GET"+"SET" = GETSET,
// which the model does not implement). Fixed seed (CI is repeatable) unless
// LOCKSTEP_DIFF_SEED is set; LOCKSTEP_DIFF_COUNT sets the number of streams (default 200).
TEST(ServeVsRedis, RandomFragmentStreams) {
  Servers& s = servers();
  ASSERT_TRUE(s.error.empty()) << s.error;
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  const char* seed = std::getenv("LOCKSTEP_DIFF_SEED");
  params.seed = seed != nullptr ? std::strtoull(seed, nullptr, 10) : 20260101;
  const char* count = std::getenv("LOCKSTEP_DIFF_COUNT");
  params.maxSuccess = count != nullptr ? std::max(1, std::atoi(count)) : 200;
  const auto result = rc::detail::checkTestable(
      [&s] {
        const auto pieces = *rc::gen::resize(30, rc::gen::container<std::vector<std::string>>(
            rc::gen::element<std::string>("*", "$", "\r\n", "\r", "\n", "1", "2", "-1", "0", "x", " ",
                                          "\"", "'", "\\", "PING ", "ECHO ", "*2\r\n", "$4\r\n",
                                          "$1\r\n", "abc", "GET ", "SET ", "QUIT")));
        std::string stream;
        for (const auto& p : pieces) stream += p;
        s.flush();
        const std::string real = round_trip(s.redis->port(), stream);
        const std::string ours = round_trip(s.serve->ports()[0], stream);
        RC_ASSERT(printable(ours) == printable(real));
      },
      rc::detail::TestMetadata{"RandomFragmentStreams", "RandomFragmentStreams"}, params);
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  if (!result.template is<rc::detail::SuccessResult>()) FAIL() << message.str();
}

}  // namespace
}  // namespace lockstep::differential
