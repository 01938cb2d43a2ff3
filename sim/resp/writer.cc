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

void append_at_depth(const Reply& reply, int depth, std::string& out) {
  LS_ASSERT(depth <= kMaxReplyDepth);
  switch (reply.type) {
    case Reply::Type::kStatus: append_line('+', reply.str, out); return;
    case Reply::Type::kError: append_line('-', reply.str, out); return;
    case Reply::Type::kInteger: append_length(':', reply.integer, out); return;
    case Reply::Type::kBulk: append_bulk(reply.str, out); return;
    case Reply::Type::kNil: out += "$-1\r\n"; return;
    case Reply::Type::kNilArray: out += "*-1\r\n"; return;
    case Reply::Type::kArray:
      append_length('*', static_cast<int64_t>(reply.elements.size()), out);
      for (const Reply& e : reply.elements) append_at_depth(e, depth + 1, out);
      return;
  }
  LS_ASSERT(false && "unknown reply type");
}

}  // namespace

void append_reply(const Reply& reply, std::string& out) {
  const size_t before = out.size();
  append_at_depth(reply, 0, out);
  LS_ASSERT(out.size() > before);
}

std::string encode_reply(const Reply& reply) {
  std::string out;
  append_reply(reply, out);
  return out;
}

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
