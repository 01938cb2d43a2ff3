#include "sim/kernel/message.h"

#include "sim/core/assert.h"

namespace lockstep::kernel {

void Message::set_args(const std::string* argv, size_t n) {
  LS_ASSERT(n < (1u << 20));
  if (args.size() < n) args.resize(n);
  for (size_t i = 0; i < n; ++i) args[i].assign(argv[i]);
  argc = static_cast<uint32_t>(n);
  LS_ASSERT(argc <= args.size());
}

void Message::set_args(const std::vector<std::string>& argv) { set_args(argv.data(), argv.size()); }

void Message::take_args(std::vector<std::string> argv) {
  LS_ASSERT(argv.size() < (1u << 20));
  args.swap(argv);
  argc = static_cast<uint32_t>(args.size());
}

void Message::push_arg(std::string_view a) {
  LS_ASSERT(argc <= args.size());
  if (args.size() == argc) args.emplace_back();
  args[argc++].assign(a.data(), a.size());
}

void Message::clear() {
  kind = MsgKind::kRequest;
  conn = 0;
  channel = 0;
  to_epoch = 0;
  id = 0;
  op = -1;
  group = 0;
  script = nullptr;
  argc = 0;
  state_keys.clear();
  reply = redis::Reply();
}

}  // namespace lockstep::kernel
