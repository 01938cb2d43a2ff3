// `lockstep check`: placeholder until the subcommand lands.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/commands.h"

namespace lockstep::cli {

void register_check(CLI::App& app, Action& action) {
  CLI::App* sub = app.add_subcommand("check", "(not implemented yet)");
  sub->allow_extras();
  sub->callback([&action] {
    action = [] {
      std::fprintf(stderr, "lockstep check: not implemented yet\n");
      return static_cast<int>(kExitBadInput);
    };
  });
}

}  // namespace lockstep::cli
