// `lockstep serve [--port P] [--nodes N] [--bind ADDR] [--trace FILE]`: the Redis node model over
// RESP2; --trace writes every command as it runs (cli/serve/tracing_backend.h).
//
// N independent model nodes on consecutive ports P..P+N-1, real time as their clock, on
// 127.0.0.1 unless told otherwise. Prints one line per listening node, serves until SIGINT,
// SIGTERM or SIGHUP, or until SHUTDOWN has ended every node (one line each), then exits 0. Bad options or a port in use exit 2 with a message.
#include <CLI/CLI.hpp>
#include <sys/resource.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>
#include <cstdio>
#include <memory>

#include "cli/commands.h"
#include "cli/explore_common.h"
#include "cli/serve/model_backend.h"
#include "cli/serve/server.h"
#include "cli/serve/tracing_backend.h"

namespace lockstep::cli {
namespace {

struct ServeArgs {
  serve::ServeOptions options;
  size_t max_output_mb = 32;
  std::string trace;  // --trace FILE: every command, as MONITOR shows them
};

// As redis-server does at start-up: allow as many open files as the hard limit permits, so that
// --maxclients connections fit.
void raise_open_files_limit() {
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur >= limit.rlim_max) return;
  limit.rlim_cur = limit.rlim_max;
  setrlimit(RLIMIT_NOFILE, &limit);
}

// As redis-server does when it cannot get enough file descriptors: lower maxclients to what the
// limit allows (32 kept for the listeners, logs and the like) and say so, so that extra clients
// get "max number of clients reached" instead of hanging in the accept queue.
void fit_maxclients(serve::ServeOptions& options) {
  constexpr rlim_t kReserved = 32;
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY) return;
  const rlim_t nodes = static_cast<rlim_t>(options.nodes);
  const rlim_t usable = limit.rlim_cur > kReserved + nodes ? limit.rlim_cur - kReserved - nodes : 0;
  const size_t per_node = std::max<size_t>(1, static_cast<size_t>(usable / nodes));
  if (per_node >= options.max_connections) return;
  std::fprintf(stderr,
               "lockstep serve: warning: the open files limit is %llu, so maxclients is lowered from %zu "
               "to %zu per node (raise it with ulimit -n)\n",
               static_cast<unsigned long long>(limit.rlim_cur), options.max_connections, per_node);
  options.max_connections = per_node;
}

int run_serve(ServeArgs& args) {
  args.options.backend = serve::model_backend_factory();
  if (!args.trace.empty()) {
    auto trace = std::make_shared<serve::Trace>();
    trace->file = std::fopen(args.trace.c_str(), "w");
    if (trace->file == nullptr) {
      std::fprintf(stderr, "lockstep serve: --trace: %s: cannot open for writing: %s\n", args.trace.c_str(),
                   std::strerror(errno));
      return kExitBadInput;
    }
    serve::BackendFactory model = args.options.backend;
    args.options.backend = [model, trace](int index, uint16_t port, serve::PushFn push) {
      return serve::make_tracing_backend(model(index, port, std::move(push)), index, trace);
    };
  }
  args.options.max_output_bytes = args.max_output_mb * 1024 * 1024;
  std::vector<uint16_t> ports_of_nodes;  // filled once the ports are bound
  args.options.on_node_shut_down = [&ports_of_nodes](int index) {
    std::printf("lockstep serve: node %d (port %u) shut down by SHUTDOWN\n", index,
                static_cast<unsigned>(ports_of_nodes[static_cast<size_t>(index)]));
    std::fflush(stdout);
  };
  raise_open_files_limit();
  fit_maxclients(args.options);
  auto server = serve::Server::create(args.options);
  if (!server.ok()) {
    std::fprintf(stderr, "%s\n", server.status().message().c_str());
    return kExitBadInput;
  }
  const auto& ports = server.value()->ports();
  ports_of_nodes = ports;
  for (size_t i = 0; i < ports.size(); i++) {
    std::printf("lockstep serve: node %zu listening on %s:%u\n", i,
                args.options.bind_address.c_str(), static_cast<unsigned>(ports[i]));
  }
  std::fflush(stdout);
  server.value()->run(/*handle_signals=*/true);
  std::printf("lockstep serve: stopped\n");
  return kExitOk;
}

}  // namespace

void register_serve(CLI::App& app, Action& action) {
  auto args = std::make_shared<ServeArgs>();
  CLI::App* sub = app.add_subcommand(
      "serve", "Serve the Redis node model over RESP2 (one node per port, real-time clock)");
  sub->add_option("--port", args->options.port, "First port (node i listens on port+i)")
      ->default_val(6379)
      ->check(CLI::Range(0, 65535));
  sub->add_option("--nodes", args->options.nodes, "Number of independent nodes")
      ->default_val(1)
      ->check(CLI::Range(1, 1024));
  sub->add_option("--bind", args->options.bind_address, "Address to listen on")
      ->default_val("127.0.0.1");
  sub->add_option("--maxclients", args->options.max_connections, "Connections per node")
      ->default_val(10000)
      ->check(CLI::Range(1, 1000000));
  sub->add_option("--busy-threshold-ms", args->options.busy_threshold_ms,
                  "A script running longer keeps the server answering others: -BUSY, SCRIPT KILL "
                  "(Redis's busy-reply-threshold)")
      ->default_val(5000)
      ->check(CLI::Range(int64_t{1}, int64_t{3600000}));
  sub->add_option("--max-output-mb", args->max_output_mb,
                  "Pending reply bytes per connection before it is dropped (MiB)")
      ->default_val(32)
      ->check(CLI::Range(1, 4096));
  sub->add_option("--trace", args->trace,
                  "Write every command to this file as it runs, one JSON line each: node, connection, argv "
                  "(what MONITOR shows)")
      ->check(non_empty_path("a file name"));
  sub->callback([&action, args] { action = [args] { return run_serve(*args); }; });
}

}  // namespace lockstep::cli
