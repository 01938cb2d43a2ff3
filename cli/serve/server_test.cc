// Network-layer tests of `lockstep serve` against a fake backend (fake_backend_test_util.h):
// framing, protocol errors, limits, push routing, many clients, clients that vanish.
// The model-backed tests (real commands, EVAL, pub/sub through the model) are in
// model_server_test.cc.
#include "cli/serve/server.h"

#include <hiredis/hiredis.h>
#include <gtest/gtest.h>

#include <thread>

#include "cli/serve/fake_backend_test_util.h"
#include "cli/serve/raw_client_test_util.h"

namespace lockstep::serve {
namespace {

using testing::FakeBackend;
using testing::RawClient;

// Runs a server on an ephemeral loopback port in a background thread.
class ServerFixture : public ::testing::Test {
 protected:
  void start(ServeOptions options = ServeOptions()) {
    options.port = 0;
    options.backend = [this](int, uint16_t, PushFn push) {
      auto b = std::make_unique<FakeBackend>(std::move(push));
      backend_ = b.get();
      return b;
    };
    auto created = Server::create(std::move(options));
    ASSERT_TRUE(created.ok()) << created.status().message();
    server_ = std::move(created.value());
    port_ = server_->ports()[0];
    thread_ = std::thread([this] { server_->run(false); });
  }
  void TearDown() override {
    if (server_) server_->stop();
    if (thread_.joinable()) thread_.join();
  }
  redisContext* connect() {
    redisContext* c = redisConnect("127.0.0.1", port_);
    EXPECT_TRUE(c != nullptr && c->err == 0);
    return c;
  }
  // Polls until the server reports `n` open connections (the server thread updates it).
  bool wait_connections(size_t n) {
    for (int i = 0; i < 500; i++) {
      if (server_->connection_count(0) == n) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return false;
  }

  std::unique_ptr<Server> server_;
  FakeBackend* backend_ = nullptr;
  std::thread thread_;
  uint16_t port_ = 0;
};

std::string command(redisContext* c, std::vector<std::string> argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (auto& a : argv) ptrs.push_back(a.data()), lens.push_back(a.size());
  auto* r = static_cast<redisReply*>(redisCommandArgv(c, static_cast<int>(argv.size()), ptrs.data(), lens.data()));
  if (r == nullptr) return "<io error>";
  std::string s = r->type == REDIS_REPLY_INTEGER ? std::to_string(r->integer)
                  : r->str != nullptr           ? std::string(r->str, r->len)
                                                : "<type " + std::to_string(r->type) + ">";
  freeReplyObject(r);
  return s;
}

TEST_F(ServerFixture, AnswersHiredisAndInlineClients) {
  start();
  redisContext* c = connect();
  EXPECT_EQ(command(c, {"PING"}), "PONG");
  EXPECT_EQ(command(c, {"ECHO", std::string("a\0b", 3)}), std::string("a\0b", 3));
  redisFree(c);
  RawClient raw(port_);
  ASSERT_TRUE(raw.send("PING\r\nECHO \"x y\"\r\n"));
  EXPECT_EQ(raw.read(15, 2000), "+PONG\r\n$3\r\nx y\r\n");
}

TEST_F(ServerFixture, PipelinedRepliesComeInOrder) {
  start();
  RawClient raw(port_);
  std::string req, want;
  for (int i = 0; i < 1000; i++) {
    const std::string v = std::to_string(i);
    req += "*2\r\n$4\r\nECHO\r\n$" + std::to_string(v.size()) + "\r\n" + v + "\r\n";
    want += "$" + std::to_string(v.size()) + "\r\n" + v + "\r\n";
  }
  ASSERT_TRUE(raw.send(req));
  EXPECT_EQ(raw.read(want.size(), 5000), want);
}

TEST_F(ServerFixture, GarbageGetsProtocolErrorAndCloseWhileOthersGoOn) {
  start();
  redisContext* good = connect();
  RawClient bad(port_);
  ASSERT_TRUE(bad.send("PING\r\n*x\r\nPING\r\n"));
  EXPECT_EQ(bad.read_to_close(2000), "+PONG\r\n-ERR Protocol error: invalid multibulk length\r\n");
  EXPECT_TRUE(bad.closed());
  EXPECT_EQ(command(good, {"PING"}), "PONG");
  redisFree(good);
}

TEST_F(ServerFixture, OversizedRequestsAreRefused) {
  start();
  RawClient bulk(port_);
  ASSERT_TRUE(bulk.send("*1\r\n$536870913\r\n"));
  EXPECT_EQ(bulk.read_to_close(2000), "-ERR Protocol error: invalid bulk length\r\n");
  RawClient inl(port_);
  ASSERT_TRUE(inl.send(std::string(70000, 'a')));
  EXPECT_EQ(inl.read_to_close(2000), "-ERR Protocol error: too big inline request\r\n");
  EXPECT_TRUE(inl.closed());
}

TEST_F(ServerFixture, QueryBufferLimitDropsClientSilently) {
  ServeOptions o;
  o.request_limits.max_query_bytes = 64 * 1024;
  start(o);
  RawClient c(port_);
  c.send("*1\r\n$200000\r\n" + std::string(100000, 'a'));
  EXPECT_EQ(c.read_to_close(2000), "");
  EXPECT_TRUE(c.closed());
}

TEST_F(ServerFixture, QuitRepliesOkAndCloses) {
  start();
  RawClient c(port_);
  ASSERT_TRUE(c.send("QUIT extra\r\nPING\r\n"));
  EXPECT_EQ(c.read_to_close(2000), "+OK\r\n");
  EXPECT_TRUE(c.closed());
}

TEST_F(ServerFixture, PushesReachTheSubscriberInOrder) {
  start();
  redisContext* sub = connect();
  redisContext* pub = connect();
  EXPECT_EQ(command(sub, {"ECHO", "before"}), "before");
  auto* r = static_cast<redisReply*>(redisCommand(sub, "SUBSCRIBE ch"));
  ASSERT_NE(r, nullptr);
  ASSERT_EQ(r->type, REDIS_REPLY_ARRAY);
  freeReplyObject(r);
  EXPECT_EQ(command(pub, {"PUBLISH", "ch", "m1"}), "1");
  EXPECT_EQ(command(pub, {"PUBLISH", "ch", "m2"}), "1");
  for (const char* want : {"m1", "m2"}) {
    void* reply = nullptr;
    ASSERT_EQ(redisGetReply(sub, &reply), REDIS_OK);
    auto* m = static_cast<redisReply*>(reply);
    ASSERT_EQ(m->elements, 3u);
    EXPECT_EQ(std::string(m->element[2]->str), want);
    freeReplyObject(m);
  }
  redisFree(sub);
  redisFree(pub);
}

// Each connection writes its replies and pushes in its own protocol, from the reply that
// switched it on (the backend is asked after every request).
TEST_F(ServerFixture, WritesEachConnectionInItsOwnProtocol) {
  start();
  RawClient resp3(port_), resp2(port_);
  ASSERT_TRUE(resp3.send("PROTO 3\r\nSUBSCRIBE ch\r\n"));
  const std::string switched = "%1\r\n$5\r\nproto\r\n:3\r\n,1.5\r\n>3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n";
  EXPECT_EQ(resp3.read(switched.size(), 2000), switched);
  ASSERT_TRUE(resp2.send("SUBSCRIBE ch\r\nPUBLISH ch hi\r\n"));
  const std::string flat = "*3\r\n$9\r\nsubscribe\r\n$2\r\nch\r\n:1\r\n*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n:2\r\n";
  EXPECT_EQ(resp2.read(flat.size(), 2000), flat);
  const std::string pushed = ">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n";
  EXPECT_EQ(resp3.read(pushed.size(), 2000), pushed);
  // And back: the reply to PROTO 2 is already RESP2.
  ASSERT_TRUE(resp3.send("PROTO 2\r\n"));
  const std::string back = "*2\r\n$5\r\nproto\r\n:2\r\n$3\r\n1.5\r\n";
  EXPECT_EQ(resp3.read(back.size(), 2000), back);
}

TEST_F(ServerFixture, ManyConnections) {
  start();
  std::vector<redisContext*> clients;
  for (int i = 0; i < 300; i++) clients.push_back(connect());
  for (redisContext* c : clients) EXPECT_EQ(command(c, {"PING"}), "PONG");
  EXPECT_TRUE(wait_connections(300));
  for (redisContext* c : clients) redisFree(c);
  EXPECT_TRUE(wait_connections(0));
}

TEST_F(ServerFixture, ClientVanishingMidRequestIsForgotten) {
  start();
  {
    RawClient c(port_);
    ASSERT_TRUE(c.send("*2\r\n$4\r\nECHO\r\n$10\r\nab"));
    EXPECT_TRUE(wait_connections(1));
  }
  EXPECT_TRUE(wait_connections(0));
  redisContext* c = connect();
  EXPECT_EQ(command(c, {"PING"}), "PONG");
  redisFree(c);
}

TEST_F(ServerFixture, ClientThatDoesNotReadIsDisconnectedAtTheOutputLimit) {
  ServeOptions o;
  o.max_output_bytes = 1024 * 1024;
  start(o);
  RawClient hog(port_);
  std::string req;
  for (int i = 0; i < 400; i++) req += "BIG 100000\r\n";  // 40 MB of replies, never read
  hog.send(req);
  bool dropped = false;
  for (int i = 0; i < 500 && !dropped; i++) {
    dropped = backend_->disconnects_.load() == 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_TRUE(dropped);
  EXPECT_TRUE(wait_connections(0));
  redisContext* c = connect();
  EXPECT_EQ(command(c, {"PING"}), "PONG");
  redisFree(c);
}

TEST_F(ServerFixture, SubscriberThatDoesNotReadIsDroppedWithoutReenteringTheBackend) {
  // The overflow happens inside the publisher's command (a push); the backend is iterating its
  // subscribers then, so the disconnect must wait until the command is over.
  ServeOptions o;
  o.max_output_bytes = 64 * 1024;
  start(o);
  RawClient sub(port_);
  ASSERT_TRUE(sub.send("SUBSCRIBE ch\r\n"));
  EXPECT_FALSE(sub.read(20, 2000).empty());
  redisContext* pub = connect();
  ASSERT_EQ(command(pub, {"PING"}), "PONG");
  ASSERT_TRUE(wait_connections(2));
  const std::string payload(10000, 'p');
  for (int i = 0; i < 2000 && server_->connection_count(0) == 2; i++) {
    command(pub, {"PUBLISH", "ch", payload});
  }
  EXPECT_TRUE(wait_connections(1));
  EXPECT_EQ(command(pub, {"PUBLISH", "ch", "x"}), "0");
  redisFree(pub);
}

TEST_F(ServerFixture, RefusesClientsPastTheLimit) {
  ServeOptions o;
  o.max_connections = 2;
  start(o);
  RawClient a(port_), b(port_);
  ASSERT_TRUE(a.send("PING\r\n"));
  ASSERT_TRUE(b.send("PING\r\n"));
  EXPECT_EQ(a.read(7, 2000), "+PONG\r\n");
  EXPECT_EQ(b.read(7, 2000), "+PONG\r\n");
  RawClient c(port_);
  EXPECT_EQ(c.read_to_close(2000), "-ERR max number of clients reached\r\n");
}

TEST_F(ServerFixture, TicksPeriodically) {
  ServeOptions o;
  o.tick_interval_ms = 10;
  start(o);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  server_->stop();
  thread_.join();
  EXPECT_GE(backend_->ticks_, 5);
}

TEST(Server, ReportsPortInUse) {
  ServeOptions o;
  o.port = 0;
  o.backend = [](int, uint16_t, PushFn push) { return std::make_unique<FakeBackend>(std::move(push)); };
  auto first = Server::create(o);
  ASSERT_TRUE(first.ok());
  o.port = first.value()->ports()[0];
  auto second = Server::create(o);
  ASSERT_FALSE(second.ok());
  EXPECT_NE(second.status().message().find("cannot listen on 127.0.0.1:"), std::string::npos);
  o.bind_address = "not-an-address";
  o.port = 0;
  EXPECT_FALSE(Server::create(o).ok());
  o.bind_address = "127.0.0.1";
  o.nodes = 0;
  EXPECT_FALSE(Server::create(o).ok());
}

}  // namespace
}  // namespace lockstep::serve
