// RESP2 encoding: replies for the server side, requests for the client side.
//
// `lockstep serve` turns the model's Replies into bytes with append_reply; tests and benchmarks
// that talk to a server build requests with append_request (the multibulk form every client
// library sends). Status and error texts never carry CR or LF on the wire: Redis replaces them
// with spaces before sending, and so does the writer, so its output is always valid RESP2.
#ifndef LOCKSTEP_SIM_RESP_WRITER_H_
#define LOCKSTEP_SIM_RESP_WRITER_H_

#include <span>
#include <string>
#include <string_view>

#include "sim/redis/reply.h"

namespace lockstep::resp {

// Appends the RESP2 encoding of `reply` to `out`.
// REQUIRES: arrays nest at most kMaxReplyDepth deep.
void append_reply(const redis::Reply& reply, std::string& out);
std::string encode_reply(const redis::Reply& reply);

// Appends a multibulk request ("*N\r\n$len\r\narg\r\n...") to `out`.
void append_request(std::span<const std::string_view> argv, std::string& out);
std::string encode_request(std::span<const std::string_view> argv);

// Deepest array nesting the writer and the reply parser accept.
constexpr int kMaxReplyDepth = 1000;

}  // namespace lockstep::resp

#endif  // LOCKSTEP_SIM_RESP_WRITER_H_
