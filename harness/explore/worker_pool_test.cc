#include "harness/explore/worker_pool.h"

#include <gtest/gtest.h>

#include <csignal>
#include <cstdlib>
#include <map>
#include <new>
#include <set>
#include <unistd.h>

namespace lockstep::explore {
namespace {

TEST(WorkerPoolTest, RunsEveryTaskOnceInWorkers) {
  for (int jobs : {1, 2, 3}) {
    std::map<uint64_t, std::string> got;
    std::set<std::string> pids;
    Status s = run_tasks(
        20, jobs, [](uint64_t i) { return std::to_string(i * i) + " " + std::to_string(::getpid()); },
        [&](uint64_t i, const TaskOutput& out) {
          ASSERT_FALSE(out.crashed);
          EXPECT_EQ(got.count(i), 0u);
          got[i] = out.text.substr(0, out.text.find(' '));
          pids.insert(out.text.substr(out.text.find(' ') + 1));
        });
    ASSERT_TRUE(s.ok()) << s.message();
    ASSERT_EQ(got.size(), 20u);
    for (uint64_t i = 0; i < 20; ++i) EXPECT_EQ(got[i], std::to_string(i * i));
    EXPECT_EQ(pids.count(std::to_string(::getpid())), 0u) << "tasks run in workers, not here";
    EXPECT_LE(pids.size(), static_cast<size_t>(jobs));
  }
}

TEST(WorkerPoolTest, ACrashingTaskIsReportedAndTheRestStillRun) {
  std::map<uint64_t, TaskOutput> got;
  Status s = run_tasks(
      10, 2,
      [](uint64_t i) -> std::string {
        if (i == 3) std::abort();
        if (i == 6) ::_exit(7);
        return "ok";
      },
      [&](uint64_t i, const TaskOutput& out) { got[i] = out; });
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(got.size(), 10u);
  EXPECT_TRUE(got[3].crashed);
  EXPECT_NE(got[3].text.find("signal " + std::to_string(SIGABRT)), std::string::npos) << got[3].text;
  EXPECT_TRUE(got[6].crashed);
  EXPECT_NE(got[6].text.find("exited with status 7"), std::string::npos) << got[6].text;
  for (uint64_t i : {0, 1, 2, 4, 5, 7, 8, 9}) {
    EXPECT_FALSE(got[i].crashed) << i;
    EXPECT_EQ(got[i].text, "ok");
  }
}

// Out of memory in a worker is the machine's limit, not a crash of the simulator: the output says
// so, and the seed becomes an error without a verdict (crashed_seed).
TEST(WorkerPoolTest, AWorkerOutOfMemoryIsReportedAsSuch) {
  std::map<uint64_t, TaskOutput> got;
  Status s = run_tasks(
      4, 2,
      [](uint64_t i) -> std::string {
        if (i == 1) throw std::bad_alloc();
        if (i == 2) ::_exit(kOutOfMemoryStatus);  // what lockstep's out-of-memory path does in a worker
        return "ok";
      },
      [&](uint64_t i, const TaskOutput& out) { got[i] = out; });
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(got.size(), 4u);
  for (uint64_t i : {1, 2}) {
    EXPECT_TRUE(got[i].crashed) << i;
    EXPECT_TRUE(got[i].out_of_memory) << i;
    EXPECT_EQ(got[i].text, "the worker ran out of memory") << i;
  }
  for (uint64_t i : {0, 3}) EXPECT_FALSE(got[i].crashed || got[i].out_of_memory) << i;
  EXPECT_FALSE(in_worker());  // only in the forked children
}

TEST(WorkerPoolTest, LargeOutputsArriveWhole) {
  std::string got;
  Status s = run_tasks(1, 1, [](uint64_t) { return std::string(1 << 20, 'x') + "end"; },
                       [&](uint64_t, const TaskOutput& out) { got = out.text; });
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(got.size(), (1u << 20) + 3);
  EXPECT_EQ(got.substr(got.size() - 3), "end");
}

// Issue 14: a stop ends the pool at once; the workers still running are killed, and neither
// their tasks nor their deaths are reported (a Ctrl-C is not a crash). Workers ignore SIGINT.
TEST(WorkerPoolTest, AStopKillsTheWorkersAndReportsNoCrash) {
  uint64_t done = 0;
  bool crashed = false;
  Status s = run_tasks(
      1000, 2,
      [](uint64_t i) -> std::string {
        if (i >= 4) {
          ::raise(SIGINT);  // ignored in a worker
          ::sleep(30);      // would hold the pool up if not killed
        }
        return std::to_string(i);
      },
      [&](uint64_t, const TaskOutput& out) {
        ++done;
        crashed = crashed || out.crashed;
      },
      [&] { return done >= 4; });
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(done, 4u);
  EXPECT_FALSE(crashed);
}

TEST(WorkerPoolTest, NoTasksNoWorkers) {
  int calls = 0;
  EXPECT_TRUE(run_tasks(0, 4, [](uint64_t) { return std::string(); }, [&](uint64_t, const TaskOutput&) { ++calls; }).ok());
  EXPECT_EQ(calls, 0);
  EXPECT_GE(available_cpus(), 1);
}

}  // namespace
}  // namespace lockstep::explore
