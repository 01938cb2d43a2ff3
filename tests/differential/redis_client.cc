#include "tests/differential/redis_client.h"

#include <hiredis/hiredis.h>
#include <sys/socket.h>

#include <vector>

#include "sim/core/assert.h"

namespace lockstep::differential {
namespace {

using redis::Reply;

// Places `value` where hiredis says it belongs: a new root, or a slot of the parent array.
void* place(const redisReadTask* task, Reply value) {
  if (task->parent == nullptr) return new Reply(std::move(value));
  auto* parent = static_cast<Reply*>(task->parent->obj);
  LS_ASSERT(parent->type == Reply::Type::kArray);
  LS_ASSERT(task->idx >= 0 && static_cast<size_t>(task->idx) < parent->elements.size());
  // The parent's vector was sized once at creation, so this address stays valid.
  Reply& slot = parent->elements[static_cast<size_t>(task->idx)];
  slot = std::move(value);
  return &slot;
}

void* create_string(const redisReadTask* task, char* str, size_t len) {
  const std::string_view s(str, len);
  if (task->type == REDIS_REPLY_ERROR) return place(task, Reply::error(s));
  if (task->type == REDIS_REPLY_STATUS) return place(task, Reply::status(s));
  return place(task, Reply::bulk(s));
}

void* create_array(const redisReadTask* task, int elements) {
  return place(task, Reply::array(std::vector<Reply>(static_cast<size_t>(elements))));
}

void* create_integer(const redisReadTask* task, long long value) {
  return place(task, Reply::integer_of(value));
}

void* create_nil(const redisReadTask* task) {
  // The task's type is that of the header byte: '*' for "*-1", '$' for "$-1".
  return place(task, task->type == REDIS_REPLY_ARRAY ? Reply::nil_array() : Reply::nil());
}

void free_object(void* obj) { delete static_cast<Reply*>(obj); }

redisReplyObjectFunctions kReplyFunctions = {create_string, create_array, create_integer,
                                             create_nil, free_object};

Result<Reply> take(redisContext* ctx, void* raw, int rc) {
  if (rc != REDIS_OK || raw == nullptr) {
    return Status::error(std::string("redis connection error: ") +
                         (ctx->err ? ctx->errstr : "no reply"));
  }
  std::unique_ptr<Reply> reply(static_cast<Reply*>(raw));
  return std::move(*reply);
}

}  // namespace

RedisClient::RedisClient(redisContext* ctx, bool own_parser) : ctx_(ctx) {
  if (own_parser) parser_ = std::make_unique<resp::ReplyParser>();
}

namespace {

Result<redisContext*> open_context(uint16_t port) {
  const timeval timeout{5, 0};
  redisContext* ctx = redisConnectWithTimeout("127.0.0.1", port, timeout);
  if (ctx == nullptr || ctx->err) {
    std::string why = ctx ? ctx->errstr : "out of memory";
    if (ctx) redisFree(ctx);
    return Status::error("cannot connect to 127.0.0.1:" + std::to_string(port) + ": " + why);
  }
  redisSetTimeout(ctx, timeout);
  ctx->reader->fn = &kReplyFunctions;
  return ctx;
}

}  // namespace

Result<std::unique_ptr<RedisClient>> RedisClient::connect(uint16_t port) {
  auto ctx = open_context(port);
  if (!ctx.ok()) return ctx.status();
  return std::unique_ptr<RedisClient>(new RedisClient(ctx.value(), /*own_parser=*/false));
}

Result<std::unique_ptr<RedisClient>> RedisClient::connect_any_protocol(uint16_t port, int protocol) {
  LS_ASSERT(protocol == 2 || protocol == 3);
  auto ctx = open_context(port);
  if (!ctx.ok()) return ctx.status();
  std::unique_ptr<RedisClient> client(new RedisClient(ctx.value(), /*own_parser=*/true));
  if (protocol == 3) {
    auto hello = client->command({"HELLO", "3"});
    if (!hello.ok()) return hello.status();
    if (hello.value().type != Reply::Type::kMap) return Status::error("HELLO 3 answered " + describe(hello.value()));
  }
  return client;
}

Result<Reply> RedisClient::read_with_parser() {
  for (int done = 0; done == 0;) {
    if (redisBufferWrite(ctx_, &done) != REDIS_OK) return Status::error("redis connection error: write failed");
  }
  Reply reply;
  char buf[16384];
  while (true) {
    switch (parser_->next(&reply)) {
      case resp::ReplyStatus::kReply: return reply;
      case resp::ReplyStatus::kError: return Status::error("redis connection error: " + parser_->error());
      case resp::ReplyStatus::kNeedMore: break;
    }
    // The socket has hiredis's 5 s receive timeout.
    const ssize_t n = ::recv(ctx_->fd, buf, sizeof(buf), 0);
    if (n <= 0) return Status::error("redis connection error: read failed or timed out");
    parser_->feed(std::string_view(buf, static_cast<size_t>(n)));
  }
}

RedisClient::~RedisClient() { redisFree(ctx_); }

void RedisClient::append(std::span<const std::string_view> argv) {
  LS_ASSERT(!argv.empty());
  std::vector<const char*> ptrs;
  std::vector<size_t> lens;
  for (std::string_view a : argv) {
    ptrs.push_back(a.data());
    lens.push_back(a.size());
  }
  const int rc = redisAppendCommandArgv(ctx_, static_cast<int>(argv.size()), ptrs.data(), lens.data());
  LS_ASSERT(rc == REDIS_OK);
}

Result<Reply> RedisClient::read_reply() {
  if (parser_ != nullptr) return read_with_parser();
  void* raw = nullptr;
  const int rc = redisGetReply(ctx_, &raw);
  return take(ctx_, raw, rc);
}

Result<Reply> RedisClient::command(std::span<const std::string_view> argv) {
  append(argv);
  return read_reply();
}

Result<Reply> RedisClient::command(std::initializer_list<std::string_view> argv) {
  return command(std::span<const std::string_view>(argv.begin(), argv.size()));
}

}  // namespace lockstep::differential
