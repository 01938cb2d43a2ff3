// `lockstep serve`: placeholder until the subcommand lands.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/commands.h"

namespace lockstep::cli {

void register_serve(CLI::App& app, Action& action) {
  CLI::App* sub = app.add_subcommand("serve", "(not implemented yet)");
  sub->allow_extras();
  sub->callback([&action] {
    action = [] {
      std::fprintf(stderr, "lockstep serve: not implemented yet\n");
      return static_cast<int>(kExitBadInput);
    };
  });
}

}  // namespace lockstep::cli
