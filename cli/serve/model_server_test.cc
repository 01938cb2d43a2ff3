// `lockstep serve` with the Redis node model behind it, driven by hiredis as any client would:
// commands, the seed RLock script through EVAL and EVALSHA, pub/sub across connections, active
// expiry, and bad clients that must not disturb good ones.
#include <hiredis/hiredis.h>
#include <gtest/gtest.h>
#include <openssl/crypto.h>

#include <thread>

#include "cli/serve/model_backend.h"
#include "cli/serve/raw_client_test_util.h"
#include "cli/serve/resp3_client_test_util.h"
#include "cli/serve/server.h"
#include "tests/differential/seed_scripts.h"

namespace lockstep::serve {
namespace {

using redis::Reply;
using testing::RawClient;
using testing::RespClient;

class ModelServer : public ::testing::Test {
 protected:
  void SetUp() override {
    ServeOptions options;
    options.port = 0;
    options.nodes = 2;
    options.backend = model_backend_factory();
    auto created = Server::create(std::move(options));
    ASSERT_TRUE(created.ok()) << created.status().message();
    server_ = std::move(created.value());
    // OpenSSL (the model's SHA-1) keeps per-thread state that only OPENSSL_thread_stop frees.
    thread_ = std::thread([this] {
      server_->run(false);
      OPENSSL_thread_stop();
    });
  }
  void TearDown() override {
    server_->stop();
    thread_.join();
  }
  redisContext* connect(int node = 0) {
    redisContext* c = redisConnect("127.0.0.1", server_->ports()[node]);
    EXPECT_TRUE(c != nullptr && c->err == 0);
    return c;
  }
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

// Runs a command; the reply rendered as text ("(nil)", "(integer) 3", "OK", "[a, b]").
std::string run(redisContext* c, std::vector<std::string> argv) {
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (auto& a : argv) ptrs.push_back(a.data()), lens.push_back(a.size());
  auto* r = static_cast<redisReply*>(
      redisCommandArgv(c, static_cast<int>(argv.size()), ptrs.data(), lens.data()));
  if (r == nullptr) return "<io error>";
  std::function<std::string(const redisReply*)> show = [&](const redisReply* x) -> std::string {
    switch (x->type) {
      case REDIS_REPLY_NIL: return "(nil)";
      case REDIS_REPLY_INTEGER: return "(integer) " + std::to_string(x->integer);
      case REDIS_REPLY_ERROR: return "(error) " + std::string(x->str, x->len);
      case REDIS_REPLY_ARRAY: {
        std::string s = "[";
        for (size_t i = 0; i < x->elements; i++) s += (i ? ", " : "") + show(x->element[i]);
        return s + "]";
      }
      default: return std::string(x->str, x->len);
    }
  };
  std::string s = show(r);
  freeReplyObject(r);
  return s;
}

TEST_F(ModelServer, ServesCommandsOnEveryNodeIndependently) {
  redisContext* a = connect(0);
  redisContext* b = connect(1);
  EXPECT_EQ(run(a, {"PING"}), "PONG");
  EXPECT_EQ(run(a, {"HSET", "h", "f", "v"}), "(integer) 1");
  EXPECT_EQ(run(a, {"HGET", "h", "f"}), "v");
  EXPECT_EQ(run(b, {"HGET", "h", "f"}), "(nil)");  // nodes share nothing
  EXPECT_EQ(server_->ports().size(), 2u);
  EXPECT_EQ(run(a, {"GET", "h"}), "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  redisFree(a);
  redisFree(b);
}

// CLIENT INFO shows the socket's own addresses and descriptor; INFO the node's real port.
TEST_F(ModelServer, ClientInfoAndInfoShowTheRealSockets) {
  redisContext* c = connect(1);
  const std::string port = std::to_string(server_->ports()[1]);
  const std::string info = run(c, {"CLIENT", "INFO"});
  EXPECT_NE(info.find(" addr=127.0.0.1:"), std::string::npos) << info;
  EXPECT_NE(info.find(" laddr=127.0.0.1:" + port + " fd="), std::string::npos) << info;
  EXPECT_EQ(info.find(" fd=-1 "), std::string::npos) << info;
  EXPECT_NE(info.find(" cmd=client|info "), std::string::npos) << info;
  EXPECT_NE(run(c, {"INFO", "server"}).find("tcp_port:" + port + "\r\n"), std::string::npos);
  redisFree(c);
}

TEST_F(ModelServer, RunsTheSeedRLockScriptThroughEvalAndEvalsha) {
  redisContext* c = connect();
  const std::string script(differential::kRlockAcquire);
  EXPECT_EQ(run(c, {"EVAL", script, "1", "lock", "30000", "u1:1"}), "(nil)");
  EXPECT_EQ(run(c, {"EVAL", script, "1", "lock", "30000", "u1:1"}), "(nil)");  // re-entry
  EXPECT_EQ(run(c, {"HGET", "lock", "u1:1"}), "2");
  const std::string sha = run(c, {"SCRIPT", "LOAD", script});
  ASSERT_EQ(sha.size(), 40u);
  const std::string ttl = run(c, {"EVALSHA", sha, "1", "lock", "30000", "u2:1"});
  ASSERT_EQ(ttl.rfind("(integer) ", 0), 0u) << ttl;
  const long long left = std::stoll(ttl.substr(10));
  EXPECT_GT(left, 29000);
  EXPECT_LE(left, 30000);
  redisFree(c);
}

TEST_F(ModelServer, UnlockPublishReachesASubscriberOnAnotherConnection) {
  redisContext* sub = connect();
  redisContext* c = connect();
  EXPECT_EQ(run(sub, {"SUBSCRIBE", "redisson_lock__channel:{lock}"}),
            "[subscribe, redisson_lock__channel:{lock}, (integer) 1]");
  EXPECT_EQ(run(c, {"EVAL", std::string(differential::kRlockAcquire), "1", "lock", "30000", "u1:1"}), "(nil)");
  EXPECT_EQ(run(c, {"EVAL", std::string(differential::kRlockUnlock), "2", "lock",
                    "redisson_lock__channel:{lock}", "0", "30000", "u1:1"}),
            "(integer) 1");
  EXPECT_EQ(run(c, {"PUBLISH", "redisson_lock__channel:{lock}", "hello"}), "(integer) 1");
  for (const char* want : {"0", "hello"}) {
    void* reply = nullptr;
    ASSERT_EQ(redisGetReply(sub, &reply), REDIS_OK);
    auto* m = static_cast<redisReply*>(reply);
    ASSERT_EQ(m->elements, 3u);
    EXPECT_EQ(std::string(m->element[0]->str), "message");
    EXPECT_EQ(std::string(m->element[2]->str), want);
    freeReplyObject(m);
  }
  redisFree(sub);
  redisFree(c);
}

// End to end: a client connecting as a RESP3 client library does (node-redis: HELLO 3 with AUTH
// and SETNAME, then CLIENT SETINFO, whose error it ignores) and using the RESP3 types: maps,
// sets, doubles, nulls, booleans from scripts, pushes while it keeps running commands.
TEST_F(ModelServer, ARespThreeClientConnectsAndSeesRespThreeTypes) {
  RespClient c(server_->ports()[0]);
  ASSERT_TRUE(c.connected());
  const Reply hello = c.call({"HELLO", "3", "AUTH", "default", "secret", "SETNAME", "resp3-test"});
  ASSERT_EQ(hello.type, Reply::Type::kMap) << describe(hello);
  EXPECT_EQ(hello.elements[4], Reply::bulk("proto"));
  EXPECT_EQ(hello.elements[5], Reply::integer_of(3));
  EXPECT_EQ(c.call({"CLIENT", "SETINFO", "LIB-NAME", "node-redis"}),
            Reply::error("ERR unknown subcommand 'SETINFO'. Try CLIENT HELP."));  // as Redis 7.0
  EXPECT_EQ(c.call({"CLIENT", "GETNAME"}), Reply::bulk("resp3-test"));
  EXPECT_EQ(c.call({"HSET", "h", "f", "v"}), Reply::integer_of(1));
  EXPECT_EQ(c.call({"HGETALL", "h"}), Reply::map({Reply::bulk("f"), Reply::bulk("v")}));
  EXPECT_EQ(c.last_bytes(), "%1\r\n$1\r\nf\r\n$1\r\nv\r\n");
  EXPECT_EQ(c.call({"HGET", "h", "nosuch"}), Reply::nil());
  EXPECT_EQ(c.last_bytes(), "_\r\n");
  EXPECT_EQ(c.call({"SADD", "s", "a"}), Reply::integer_of(1));
  EXPECT_EQ(c.call({"SMEMBERS", "s"}), Reply::set({Reply::bulk("a")}));
  EXPECT_EQ(c.call({"ZADD", "z", "0.5", "m"}), Reply::integer_of(1));
  EXPECT_EQ(c.call({"ZSCORE", "z", "m"}), Reply::double_of(0.5));
  EXPECT_EQ(c.last_bytes(), ",0.5\r\n");
  EXPECT_EQ(c.call({"ZRANGE", "z", "0", "-1", "WITHSCORES"}),
            Reply::array({Reply::array({Reply::bulk("m"), Reply::double_of(0.5)})}));
  EXPECT_EQ(c.call({"EVAL", "redis.setresp(3) return {true, redis.call('hget', 'h', 'x') == nil}", "0"}),
            Reply::array({Reply::boolean(true), Reply::boolean(true)}));
  EXPECT_EQ(c.call({"INFO", "server"}).type, Reply::Type::kVerbatim);
  // The seed's lock script over RESP3: a null for "acquired", an integer TTL otherwise.
  EXPECT_EQ(c.call({"EVAL", std::string(differential::kRlockAcquire), "1", "lock", "30000", "u1:1"}), Reply::nil());
  // Pub/sub: pushes, and normal commands in between.
  RespClient publisher(server_->ports()[0]);
  EXPECT_EQ(c.call({"SUBSCRIBE", "ch"}), Reply::push({Reply::bulk("subscribe"), Reply::bulk("ch"), Reply::integer_of(1)}));
  EXPECT_EQ(publisher.call({"PUBLISH", "ch", "hello"}), Reply::integer_of(1));
  EXPECT_EQ(c.read(), Reply::push({Reply::bulk("message"), Reply::bulk("ch"), Reply::bulk("hello")}));
  EXPECT_EQ(c.call({"GET", "nosuch"}), Reply::nil());
  EXPECT_EQ(c.call({"PING"}), Reply::status("PONG"));
  // HELLO 2 switches back: RESP2 shapes, RESP2 subscribed-mode rules.
  EXPECT_EQ(c.call({"HELLO", "2"}).type, Reply::Type::kArray);
  EXPECT_EQ(publisher.call({"PUBLISH", "ch", "again"}), Reply::integer_of(1));
  EXPECT_EQ(c.read(), Reply::array({Reply::bulk("message"), Reply::bulk("ch"), Reply::bulk("again")}));
  EXPECT_EQ(c.call({"PING"}), Reply::array({Reply::bulk("pong"), Reply::bulk("")}));
  EXPECT_EQ(c.call({"RESET"}), Reply::status("RESET"));
  EXPECT_EQ(c.call({"HGETALL", "h"}), Reply::array({Reply::bulk("f"), Reply::bulk("v")}));
}

TEST_F(ModelServer, ExpiresKeysActivelyWithTheRealClock) {
  redisContext* c = connect();
  EXPECT_EQ(run(c, {"SET", "k", "v", "PX", "100"}), "OK");
  EXPECT_EQ(run(c, {"DBSIZE"}), "(integer) 1");
  // DBSIZE does not touch the key: only the 100 ms active expiry cycle can remove it.
  bool gone = false;
  for (int i = 0; i < 100 && !gone; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    gone = run(c, {"DBSIZE"}) == "(integer) 0";
  }
  EXPECT_TRUE(gone);
  redisFree(c);
}

TEST_F(ModelServer, BadClientsDoNotDisturbOthers) {
  redisContext* good = connect();
  EXPECT_EQ(run(good, {"SET", "k", "1"}), "OK");
  {
    RawClient garbage(server_->ports()[0]);
    garbage.send("*1\r\n$x\r\n");
    EXPECT_EQ(garbage.read_to_close(2000), "-ERR Protocol error: invalid bulk length\r\n");
    RawClient huge(server_->ports()[0]);
    huge.send("*2\r\n$3\r\nGET\r\n$600000000\r\n");
    EXPECT_EQ(huge.read_to_close(2000), "-ERR Protocol error: invalid bulk length\r\n");
    RawClient half(server_->ports()[0]);
    half.send("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nab");  // then vanishes mid-request
  }
  std::vector<redisContext*> many;
  for (int i = 0; i < 200; i++) many.push_back(connect());
  for (size_t i = 0; i < many.size(); i++) {
    EXPECT_EQ(run(many[i], {"INCR", "k"}), "(integer) " + std::to_string(i + 2));
  }
  for (redisContext* m : many) redisFree(m);
  EXPECT_EQ(run(good, {"GET", "k"}), "201");
  redisFree(good);
}

// BLPOP blocks the connection: requests it sends meanwhile wait, a push from another client
// serves it (and then the waiting requests run), its timeout answers nil, and a client that
// leaves while blocked is forgotten without taking an element.
TEST_F(ModelServer, BlpopBlocksUntilAPushOrItsTimeout) {
  const uint16_t port = server_->ports()[0];
  redisContext* other = connect(0);
  RawClient waiter(port);
  ASSERT_TRUE(waiter.send("*3\r\n$5\r\nBLPOP\r\n$1\r\nq\r\n$1\r\n0\r\n*1\r\n$4\r\nPING\r\n"));
  EXPECT_EQ(waiter.read(1, 200), "");  // blocked: neither BLPOP nor the PING behind it answers
  EXPECT_EQ(run(other, {"RPUSH", "q", "x", "y"}), "(integer) 2");
  const std::string served = "*2\r\n$1\r\nq\r\n$1\r\nx\r\n+PONG\r\n";
  EXPECT_EQ(waiter.read(served.size(), 2000), served);
  EXPECT_EQ(run(other, {"LRANGE", "q", "0", "-1"}), "[y]");

  RawClient timed(port);
  ASSERT_TRUE(timed.send("*3\r\n$5\r\nBRPOP\r\n$5\r\nempty\r\n$3\r\n0.1\r\n"));
  EXPECT_EQ(timed.read(5, 2000), "*-1\r\n");

  RawClient leaver(port);
  ASSERT_TRUE(leaver.send("*3\r\n$5\r\nBLPOP\r\n$4\r\ngone\r\n$1\r\n0\r\n"));
  for (int i = 0; i < 100 && run(other, {"CLIENT", "LIST"}).find("flags=b") == std::string::npos; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_NE(run(other, {"CLIENT", "LIST"}).find("flags=b"), std::string::npos);
  leaver.close();
  for (int i = 0; i < 100 && run(other, {"CLIENT", "LIST"}).find("flags=b") != std::string::npos; i++) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(run(other, {"RPUSH", "gone", "kept"}), "(integer) 1");
  EXPECT_EQ(run(other, {"LLEN", "gone"}), "(integer) 1");
  redisFree(other);
}

}  // namespace
}  // namespace lockstep::serve
