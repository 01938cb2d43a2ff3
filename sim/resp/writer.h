// RESP encoding: replies for the server side (RESP2 or RESP3), requests for the client side.
//
// `lockstep serve` turns the model's Replies into bytes with append_reply, in the protocol of
// each connection (HELLO): RESP3 writes every type as it is (%, ~, ",", #, =, (, >, and "_" for
// both nils); RESP2 writes each RESP3 type as Redis 7.0 writes it to a RESP2 client
// (redis::to_resp2: maps flattened, doubles as bulk strings...) without building that copy.
// Tests and benchmarks that talk to a server build requests with append_request (the multibulk
// form every client library sends). Status and error texts never carry CR or LF on the wire:
// Redis replaces them with spaces before sending, and so does the writer, so its output is
// always valid RESP.
#ifndef LOCKSTEP_SIM_RESP_WRITER_H_
#define LOCKSTEP_SIM_RESP_WRITER_H_

#include <span>
#include <string>
#include <string_view>

#include "sim/redis/reply.h"

namespace lockstep::resp {

enum class Protocol { kResp2 = 2, kResp3 = 3 };

// The protocol numbered as HELLO numbers it. REQUIRES: 2 or 3.
Protocol protocol_of(int version);

// Appends the encoding of `reply` in `protocol` to `out`.
// REQUIRES: aggregates nest at most kMaxReplyDepth deep.
void append_reply(const redis::Reply& reply, Protocol protocol, std::string& out);
std::string encode_reply(const redis::Reply& reply, Protocol protocol);
// RESP2.
void append_reply(const redis::Reply& reply, std::string& out);
std::string encode_reply(const redis::Reply& reply);

// Appends a multibulk request ("*N\r\n$len\r\narg\r\n...") to `out`.
void append_request(std::span<const std::string_view> argv, std::string& out);
std::string encode_request(std::span<const std::string_view> argv);

// Deepest array nesting the writer and the reply parser accept.
constexpr int kMaxReplyDepth = 1000;

}  // namespace lockstep::resp

#endif  // LOCKSTEP_SIM_RESP_WRITER_H_
