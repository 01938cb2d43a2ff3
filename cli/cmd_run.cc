// `lockstep run`: placeholder until the subcommand lands.
#include <CLI/CLI.hpp>

#include <cstdio>

#include "cli/commands.h"

namespace lockstep::cli {

void register_run(CLI::App& app, Action& action) {
  CLI::App* sub = app.add_subcommand("run", "(not implemented yet)");
  sub->allow_extras();
  sub->callback([&action] {
    action = [] {
      std::fprintf(stderr, "lockstep run: not implemented yet\n");
      return static_cast<int>(kExitBadInput);
    };
  });
}

}  // namespace lockstep::cli
