// `lockstep serve` as a user runs it: the built binary as a child process. It prints the
// listening ports, answers clients, exits 0 on SIGTERM and SIGINT, and exits 2 with a message
// when its port is taken or an option is bad.
#include <hiredis/hiredis.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace {

struct Child {
  pid_t pid = -1;
  int out_fd = -1;  // the child's stdout and stderr
};

Child spawn(std::vector<std::string> args, rlim_t open_files = 0) {
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  Child c;
  c.pid = ::fork();
  if (c.pid == 0) {
    if (open_files != 0) {
      rlimit limit{open_files, open_files};
      ::setrlimit(RLIMIT_NOFILE, &limit);
    }
    ::dup2(fds[1], 1);
    ::dup2(fds[1], 2);
    ::close(fds[0]);
    std::vector<char*> argv;
    std::string bin = LOCKSTEP_BINARY;
    argv.push_back(bin.data());
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(bin.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  c.out_fd = fds[0];
  return c;
}

// Reads the child's output until it contains `until` or the child closes it.
std::string read_until(int fd, const std::string& until) {
  std::string out;
  char buf[4096];
  while (out.find(until) == std::string::npos) {
    const ssize_t n = ::read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

int wait_exit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

uint16_t port_of(const std::string& out, int node) {
  const std::string key = "node " + std::to_string(node) + " listening on 127.0.0.1:";
  const size_t at = out.find(key);
  return at == std::string::npos ? 0 : static_cast<uint16_t>(std::stoi(out.substr(at + key.size())));
}

TEST(ServeCli, ServesUntilSigtermSigintOrSighupThenExitsZero) {
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) {
    Child c = spawn({"serve", "--port", "0", "--nodes", "2"});
    const std::string out = read_until(c.out_fd, "node 1 listening");
    const uint16_t port = port_of(out, 1);
    ASSERT_NE(port, 0) << out;
    redisContext* ctx = redisConnect("127.0.0.1", port);
    ASSERT_TRUE(ctx != nullptr && ctx->err == 0);
    auto* r = static_cast<redisReply*>(redisCommand(ctx, "PING"));
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(std::string(r->str), "PONG");
    freeReplyObject(r);
    ::kill(c.pid, sig);
    EXPECT_NE(read_until(c.out_fd, "stopped").find("lockstep serve: stopped"), std::string::npos);
    EXPECT_EQ(wait_exit(c.pid), 0);
    redisFree(ctx);
    ::close(c.out_fd);
  }
}

TEST(ServeCli, PortInUseAndBadOptionsExitTwo) {
  Child first = spawn({"serve", "--port", "0"});
  const uint16_t port = port_of(read_until(first.out_fd, "listening"), 0);
  ASSERT_NE(port, 0);
  Child second = spawn({"serve", "--port", std::to_string(port)});
  const std::string out = read_until(second.out_fd, "\n");
  EXPECT_EQ(wait_exit(second.pid), 2);
  EXPECT_NE(out.find("cannot listen on 127.0.0.1:" + std::to_string(port)), std::string::npos) << out;
  ::kill(first.pid, SIGTERM);
  EXPECT_EQ(wait_exit(first.pid), 0);
  Child bad = spawn({"serve", "--nodes", "0"});
  read_until(bad.out_fd, "\n");
  EXPECT_EQ(wait_exit(bad.pid), 2);
  Child bind = spawn({"serve", "--port", "0", "--bind", "not-an-ip"});
  EXPECT_NE(read_until(bind.out_fd, "\n").find("is not an IP address"), std::string::npos);
  EXPECT_EQ(wait_exit(bind.pid), 2);
}

// Issue 10: with too few file descriptors, serve lowers maxclients (and says so) and refuses
// the extra clients with Redis's error instead of leaving them hanging.
TEST(ServeCli, FewFileDescriptorsLowerMaxclients) {
  Child c = spawn({"serve", "--port", "0"}, /*open_files=*/48);
  const std::string out = read_until(c.out_fd, "listening");
  EXPECT_NE(out.find("maxclients is lowered from 10000 to"), std::string::npos) << out;
  const uint16_t port = port_of(out, 0);
  ASSERT_NE(port, 0) << out;
  std::vector<redisContext*> clients;
  std::string refused;
  for (int i = 0; i < 40 && refused.empty(); i++) {
    redisContext* ctx = redisConnect("127.0.0.1", port);
    ASSERT_TRUE(ctx != nullptr && ctx->err == 0);
    timeval timeout{5, 0};
    redisSetTimeout(ctx, timeout);
    auto* r = static_cast<redisReply*>(redisCommand(ctx, "PING"));
    if (r == nullptr) {
      ADD_FAILURE() << "client " << i << " got no answer: " << ctx->errstr;
    } else {
      if (r->type == REDIS_REPLY_ERROR) refused = r->str;
      freeReplyObject(r);
    }
    clients.push_back(ctx);
  }
  EXPECT_EQ(refused, "ERR max number of clients reached");
  for (redisContext* ctx : clients) redisFree(ctx);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_exit(c.pid), 0);
  ::close(c.out_fd);
}

// A reply's text (status, error or bulk), or its integer.
std::string text_of(redisReply* r) {
  if (r == nullptr) return "<no reply>";
  std::string out = r->type == REDIS_REPLY_INTEGER ? std::to_string(r->integer) : std::string(r->str, r->len);
  freeReplyObject(r);
  return out;
}

// Sends EVAL of `body` on `runner` without waiting for its reply, then waits past the tests'
// busy threshold (300 ms), so that the script is busy.
void start_busy_script(redisContext* runner, const char* body) {
  ASSERT_EQ(redisAppendCommand(runner, "EVAL %s 0", body), REDIS_OK);
  ASSERT_EQ(redisBufferWrite(runner, nullptr), REDIS_OK);
  ::usleep(600 * 1000);
}

// Issue 10: a script that runs past the busy threshold does not freeze serve: other clients get
// Redis's -BUSY, SCRIPT KILL stops a script that has not written and is refused for one that has.
TEST(ServeCli, LongScriptsAreBusyAndKillable) {
  Child c = spawn({"serve", "--port", "0", "--busy-threshold-ms", "300"});
  const uint16_t port = port_of(read_until(c.out_fd, "listening"), 0);
  ASSERT_NE(port, 0);
  redisContext* runner = redisConnect("127.0.0.1", port);
  redisContext* other = redisConnect("127.0.0.1", port);
  ASSERT_TRUE(runner != nullptr && runner->err == 0 && other != nullptr && other->err == 0);
  for (bool writes : {false, true}) {
    const char* body = writes ? "redis.call('set', 'k', 'v') while true do end" : "while true do end";
    start_busy_script(runner, body);
    EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "PING"))),
              "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
    const std::string kill = text_of(static_cast<redisReply*>(redisCommand(other, "SCRIPT KILL")));
    if (!writes) {
      EXPECT_EQ(kill, "OK");
      void* reply = nullptr;
      ASSERT_EQ(redisGetReply(runner, &reply), REDIS_OK);
      const std::string killed = text_of(static_cast<redisReply*>(reply));
      EXPECT_EQ(killed.rfind("ERR Script killed by user with SCRIPT KILL... script: ", 0), 0u) << killed;
      EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SCRIPT KILL"))),
                "NOTBUSY No scripts in execution right now.");
    } else {
      EXPECT_EQ(kill.rfind("UNKILLABLE Sorry the script already executed write commands", 0), 0u) << kill;
    }
  }
  // The unkillable one is still running: a signal ends serve anyway.
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_exit(c.pid), 0);
  redisFree(runner);
  redisFree(other);
  ::close(c.out_fd);
}

// Issue 10: a long function is busy like a long script, answered by FUNCTION KILL (SCRIPT KILL
// refuses a function, FUNCTION KILL a script); the busy hook survives SCRIPT FLUSH, which
// replaces the scripts' Lua state.
TEST(ServeCli, LongFunctionsAreBusyAndKillableAndFlushKeepsTheBusyHook) {
  Child c = spawn({"serve", "--port", "0", "--busy-threshold-ms", "300"});
  const uint16_t port = port_of(read_until(c.out_fd, "listening"), 0);
  ASSERT_NE(port, 0);
  redisContext* runner = redisConnect("127.0.0.1", port);
  redisContext* other = redisConnect("127.0.0.1", port);
  ASSERT_TRUE(runner != nullptr && runner->err == 0 && other != nullptr && other->err == 0);
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(
                other, "FUNCTION LOAD %s", "#!lua name=spin\nredis.register_function('spin', function() while true do end end)"))),
            "spin");
  ASSERT_EQ(redisAppendCommand(runner, "FCALL spin 0"), REDIS_OK);
  ASSERT_EQ(redisBufferWrite(runner, nullptr), REDIS_OK);
  ::usleep(600 * 1000);
  const std::string busy_function =
      "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "PING"))), busy_function);
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SCRIPT KILL"))), busy_function);
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "FUNCTION KILL"))), "OK");
  void* reply = nullptr;
  ASSERT_EQ(redisGetReply(runner, &reply), REDIS_OK);
  const std::string killed = text_of(static_cast<redisReply*>(reply));
  EXPECT_EQ(killed.rfind("ERR Script killed by user with SCRIPT KILL... script: spin, on @user_function:2.", 0), 0u)
      << killed;
  // After SCRIPT FLUSH a long EVAL is still busy and killable; FUNCTION KILL refuses it.
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SCRIPT FLUSH"))), "OK");
  start_busy_script(runner, "while true do end");
  const std::string busy_eval = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "FUNCTION KILL"))), busy_eval);
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SCRIPT KILL"))), "OK");
  ASSERT_EQ(redisGetReply(runner, &reply), REDIS_OK);
  EXPECT_EQ(text_of(static_cast<redisReply*>(reply)).rfind("ERR Script killed by user with SCRIPT KILL...", 0), 0u);
  ::kill(c.pid, SIGTERM);
  EXPECT_EQ(wait_exit(c.pid), 0);
  redisFree(runner);
  redisFree(other);
  ::close(c.out_fd);
}

// SHUTDOWN ends the node it is sent to, as a redis-server exits: the caller gets no reply, the
// port closes, the other nodes go on; when every node has ended, serve exits 0. While a script
// is busy (even one that wrote, which SCRIPT KILL refuses), only SHUTDOWN NOSAVE does it, as
// the BUSY error says.
TEST(ServeCli, ShutdownEndsItsNodeEvenWhileAScriptIsBusy) {
  Child c = spawn({"serve", "--port", "0", "--nodes", "2", "--busy-threshold-ms", "300"});
  const std::string out = read_until(c.out_fd, "node 1 listening");
  const uint16_t port0 = port_of(out, 0), port1 = port_of(out, 1);
  ASSERT_TRUE(port0 != 0 && port1 != 0) << out;
  redisContext* runner = redisConnect("127.0.0.1", port0);
  redisContext* other = redisConnect("127.0.0.1", port0);
  redisContext* node1 = redisConnect("127.0.0.1", port1);
  ASSERT_TRUE(runner != nullptr && runner->err == 0 && other != nullptr && other->err == 0);
  ASSERT_TRUE(node1 != nullptr && node1->err == 0);
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SHUTDOWN SAVE NOSAVE"))), "ERR syntax error");
  start_busy_script(runner, "redis.call('set', 'k', 'v') while true do end");
  const std::string busy = "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SHUTDOWN"))), busy);
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SHUTDOWN NOW"))), busy);
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(other, "SHUTDOWN ABORT"))), "ERR No shutdown in progress.");
  EXPECT_EQ(redisCommand(other, "SHUTDOWN NOSAVE"), nullptr);  // no reply: the connection closes
  void* reply = nullptr;
  EXPECT_EQ(redisGetReply(runner, &reply), REDIS_ERR);  // the script's caller is cut off too
  EXPECT_NE(read_until(c.out_fd, "shut down by SHUTDOWN").find("node 0 (port " + std::to_string(port0) + ")"),
            std::string::npos);
  redisContext* late = redisConnect("127.0.0.1", port0);
  EXPECT_TRUE(late == nullptr || late->err != 0);  // the port is closed
  if (late != nullptr) redisFree(late);
  // Node 1 is untouched; a plain SHUTDOWN (no script running) ends it, and serve with it.
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(node1, "PING"))), "PONG");
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(node1, "MULTI"))), "OK");
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(node1, "SHUTDOWN"))),
            "ERR Command not allowed inside a transaction");
  EXPECT_EQ(text_of(static_cast<redisReply*>(redisCommand(node1, "DISCARD"))), "OK");
  EXPECT_EQ(redisCommand(node1, "SHUTDOWN"), nullptr);
  const std::string rest = read_until(c.out_fd, "stopped");
  EXPECT_NE(rest.find("node 1 (port " + std::to_string(port1) + ") shut down by SHUTDOWN"), std::string::npos) << rest;
  EXPECT_NE(rest.find("lockstep serve: stopped"), std::string::npos) << rest;
  EXPECT_EQ(wait_exit(c.pid), 0);
  redisFree(runner);
  redisFree(other);
  redisFree(node1);
  ::close(c.out_fd);
}

// Issue 10: a script blocked inside a C function (a backtracking pattern) never reaches the
// instruction hook; SIGINT must still end serve, promptly.
TEST(ServeCli, ASignalEndsServeEvenWhileAScriptIsStuckInC) {
  Child c = spawn({"serve", "--port", "0"});
  const uint16_t port = port_of(read_until(c.out_fd, "listening"), 0);
  ASSERT_NE(port, 0);
  redisContext* ctx = redisConnect("127.0.0.1", port);
  ASSERT_TRUE(ctx != nullptr && ctx->err == 0);
  ASSERT_EQ(redisAppendCommand(ctx, "EVAL %s 0", "return string.find(string.rep('a', 40), string.rep('a*', 40) .. 'b')"),
            REDIS_OK);
  ASSERT_EQ(redisBufferWrite(ctx, nullptr), REDIS_OK);
  ::usleep(300 * 1000);
  ::kill(c.pid, SIGINT);
  const std::string out = read_until(c.out_fd, "exiting");
  EXPECT_NE(out.find("a script did not stop in time; exiting"), std::string::npos) << out;
  EXPECT_EQ(wait_exit(c.pid), 0);
  redisFree(ctx);
  ::close(c.out_fd);
}

}  // namespace
