#include "sim/resp/writer.h"

#include "sim/core/assert.h"

namespace lockstep::resp {
namespace {

using redis::Reply;

// A status or error line with CR and LF replaced by spaces, as Redis sends it.
void append_line(char prefix, std::string_view text, std::string& out) {
  out.push_back(prefix);
  const size_t start = out.size();
  out.append(text);
  for (size_t i = start; i < out.size(); i++) {
    if (out[i] == '\r' || out[i] == '\n') out[i] = ' ';
  }
  out += "\r\n";
}

void append_length(char prefix, int64_t n, std::string& out) {
  out.push_back(prefix);
  out += std::to_string(n);
  out += "\r\n";
}

void append_bulk(std::string_view s, std::string& out) {
  append_length('$', static_cast<int64_t>(s.size()), out);
  out.append(s);
  out += "\r\n";
}

// An aggregate's header: its RESP3 type byte, or '*' in RESP2; a map counts its pairs in RESP3
// and its keys and values in RESP2.
void append_aggregate_header(const Reply& reply, Protocol protocol, std::string& out) {
  const int64_t n = static_cast<int64_t>(reply.elements.size());
  if (protocol == Protocol::kResp2) return append_length('*', n, out);
  switch (reply.type) {
    case Reply::Type::kMap: return append_length('%', n / 2, out);
    case Reply::Type::kSet: return append_length('~', n, out);
    case Reply::Type::kPush: return append_length('>', n, out);
    default: return append_length('*', n, out);
  }
}

// A scalar that RESP3 has a type for and RESP2 writes as a bulk string or an integer.
void append_resp3_scalar(const Reply& reply, Protocol protocol, std::string& out) {
  const bool resp3 = protocol == Protocol::kResp3;
  switch (reply.type) {
    case Reply::Type::kDouble:
      if (!resp3) return append_bulk(reply.str, out);
      out.push_back(',');
      out += reply.str;
      out += "\r\n";
      return;
    case Reply::Type::kBigNumber:
      if (!resp3) return append_bulk(reply.str, out);
      out.push_back('(');
      out += reply.str;
      out += "\r\n";
      return;
    case Reply::Type::kVerbatim:
      if (!resp3) return append_bulk(reply.verbatim_text(), out);
      append_length('=', static_cast<int64_t>(reply.str.size()), out);
      out += reply.str;
      out += "\r\n";
      return;
    case Reply::Type::kBool:
      if (!resp3) return append_length(':', reply.integer, out);
      out += reply.integer != 0 ? "#t\r\n" : "#f\r\n";
      return;
    default:
      LS_ASSERT(false && "not a RESP3 scalar");
  }
}

void append_at_depth(const Reply& reply, Protocol protocol, int depth, std::string& out) {
  LS_ASSERT(depth <= kMaxReplyDepth);
  const bool resp3 = protocol == Protocol::kResp3;
  switch (reply.type) {
    case Reply::Type::kStatus: append_line('+', reply.str, out); return;
    case Reply::Type::kError: append_line('-', reply.str, out); return;
    case Reply::Type::kInteger: append_length(':', reply.integer, out); return;
    case Reply::Type::kBulk: append_bulk(reply.str, out); return;
    case Reply::Type::kNil: out += resp3 ? "_\r\n" : "$-1\r\n"; return;
    case Reply::Type::kNilArray: out += resp3 ? "_\r\n" : "*-1\r\n"; return;
    case Reply::Type::kArray:
    case Reply::Type::kMap:
    case Reply::Type::kSet:
    case Reply::Type::kPush:
      append_aggregate_header(reply, protocol, out);
      for (const Reply& e : reply.elements) append_at_depth(e, protocol, depth + 1, out);
      return;
    case Reply::Type::kDouble:
    case Reply::Type::kBigNumber:
    case Reply::Type::kVerbatim:
    case Reply::Type::kBool:
      append_resp3_scalar(reply, protocol, out);
      return;
  }
  LS_ASSERT(false && "unknown reply type");
}

}  // namespace

Protocol protocol_of(int version) {
  LS_ASSERT(version == 2 || version == 3);
  return version == 3 ? Protocol::kResp3 : Protocol::kResp2;
}

void append_reply(const Reply& reply, Protocol protocol, std::string& out) {
  const size_t before = out.size();
  append_at_depth(reply, protocol, 0, out);
  LS_ASSERT(out.size() > before);
}

std::string encode_reply(const Reply& reply, Protocol protocol) {
  std::string out;
  append_reply(reply, protocol, out);
  return out;
}

void append_reply(const Reply& reply, std::string& out) { append_reply(reply, Protocol::kResp2, out); }

std::string encode_reply(const Reply& reply) { return encode_reply(reply, Protocol::kResp2); }

void append_request(std::span<const std::string_view> argv, std::string& out) {
  LS_ASSERT(!argv.empty());
  append_length('*', static_cast<int64_t>(argv.size()), out);
  for (std::string_view arg : argv) append_bulk(arg, out);
}

std::string encode_request(std::span<const std::string_view> argv) {
  std::string out;
  append_request(argv, out);
  return out;
}

}  // namespace lockstep::resp
