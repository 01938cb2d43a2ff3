// Message: one thing in flight on the simulated network.
//
// Requests carry a command (argv) and what the history needs to know about it (the lock
// operation it serves, the script's name, the keys to record after it); replies carry a Reply;
// pushes carry a pub/sub message; replication messages carry one propagated write effect.
// Messages live in a pool owned by the network and are referred to by slot index, so that a
// busy run recycles their buffers instead of allocating per message.
#ifndef LOCKSTEP_SIM_KERNEL_MESSAGE_H_
#define LOCKSTEP_SIM_KERNEL_MESSAGE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/redis/reply.h"

namespace lockstep::kernel {

using ConnId = uint32_t;
using ChannelId = uint32_t;

enum class MsgKind : uint8_t {
  kRequest,    // client -> node: one command
  kReply,      // node -> client: the reply to request `id`
  kPush,       // node -> client: a pub/sub message (reply holds the RESP array)
  kClose,      // either way: the sender closed the connection (crash); always delivered
  kReplicate,  // master -> replica: one write effect, `id` = master offset after it
  kAck,        // replica -> master: `id` = replica offset applied
};

struct Message {
  MsgKind kind = MsgKind::kRequest;
  ConnId conn = 0;
  ChannelId channel = 0;
  uint32_t to_epoch = 0;   // destination incarnation when sent
  uint64_t id = 0;         // request id, or replication offset
  int64_t op = -1;         // lock operation id this request serves (-1: none)
  uint64_t group = 0;      // replication: atomic group of the effect
  const char* script = nullptr;  // the script's name for exec records (static storage)
  // Arguments: only the first argc entries are meaningful; the rest keep their buffers.
  uint32_t argc = 0;
  std::vector<std::string> args;
  std::vector<std::string> state_keys;  // keys to record as `state` after the command ran
  redis::Reply reply;

  void set_args(const std::vector<std::string>& argv);
  void set_args(const std::string* argv, size_t n);
  // Takes the strings themselves (this message's spare buffers are freed instead of reused).
  void take_args(std::vector<std::string> argv);
  void push_arg(std::string_view arg);
  std::string_view arg(size_t i) const { return args[i]; }
  // Resets everything but buffer capacity.
  void clear();
};

}  // namespace lockstep::kernel

#endif  // LOCKSTEP_SIM_KERNEL_MESSAGE_H_
