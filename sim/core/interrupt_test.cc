#include "sim/core/interrupt.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>

namespace lockstep::interrupt {
namespace {

// Each case runs in a child (a death test): the handlers and their state are the process's.

TEST(InterruptDeathTest, TheFirstSignalOnlyAsksToStop) {
  EXPECT_EXIT(
      {
        stop_on_signal("probe", "stopping");
        raise(SIGINT);  // the handler runs before raise returns
        std::_Exit(stop_requested() == SIGINT ? 7 : 8);
      },
      testing::ExitedWithCode(7), "probe: interrupted; stopping \\(Ctrl-C again to quit at once\\)");
}

// `timeout -s INT` signals its command and then the command's process group, and a terminal's
// Ctrl-C reaches the whole group: one interruption arriving twice must not quit at once.
TEST(InterruptDeathTest, TheSameSignalTwiceAtOnceIsOneInterruption) {
  EXPECT_EXIT(
      {
        stop_on_signal("probe", "stopping");
        raise(SIGINT);
        raise(SIGINT);
        raise(SIGTERM);
        std::_Exit(stop_requested() == SIGINT ? 7 : 8);
      },
      testing::ExitedWithCode(7), "");
}

TEST(InterruptDeathTest, ASecondSignalLaterQuitsAtOnceAndRemovesTheFiles) {
  char path[] = "/tmp/lockstep_interrupt_testXXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_EXIT(
      {
        remember(path);
        stop_on_signal("probe", "stopping");
        raise(SIGINT);
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        raise(SIGINT);
        std::_Exit(0);  // not reached
      },
      testing::ExitedWithCode(128 + SIGINT), "probe: interrupted; temporary files removed");
  EXPECT_NE(access(path, F_OK), 0) << path << " was left behind";
  std::remove(path);
}

TEST(InterruptDeathTest, ExitOnSignalQuitsAtOnce) {
  EXPECT_EXIT(
      {
        exit_on_signal("probe");
        raise(SIGTERM);
        std::_Exit(0);  // not reached
      },
      testing::ExitedWithCode(128 + SIGTERM), "probe: interrupted; temporary files removed");
}

}  // namespace
}  // namespace lockstep::interrupt
