// join_all: runs several Tasks of one client concurrently (each as a background task of the
// client) and waits for all of them — Redisson's "send to every node, then sync every future".
// A crash of the client destroys the waiting caller and the tasks alike.
#ifndef LOCKSTEP_ALGORITHMS_REDISSON_JOIN_H_
#define LOCKSTEP_ALGORITHMS_REDISSON_JOIN_H_

#include <memory>
#include <optional>
#include <vector>

#include "algorithms/algorithm.h"
#include "sim/core/assert.h"

namespace lockstep::algorithms::redisson {

template <typename T>
struct JoinState {
  std::vector<std::optional<T>> results;
  size_t pending = 0;
  std::unique_ptr<Semaphore> done;
};

template <typename T>
Task<void> join_one(std::shared_ptr<JoinState<T>> state, size_t index, Task<T> task) {
  state->results[index] = co_await task;
  LS_ASSERT(state->pending > 0);
  if (--state->pending == 0) state->done->release(1);
}

template <typename T>
Task<std::vector<T>> join_all(Runtime& rt, std::vector<Task<T>> tasks) {
  std::vector<T> out;
  if (tasks.empty()) co_return out;
  auto state = std::make_shared<JoinState<T>>();
  state->results.resize(tasks.size());
  state->pending = tasks.size();
  state->done = rt.new_semaphore(0);
  for (size_t i = 0; i < tasks.size(); ++i) rt.spawn(join_one(state, i, std::move(tasks[i])));
  co_await state->done->try_acquire(-1);
  LS_ASSERT(state->pending == 0);
  for (std::optional<T>& r : state->results) out.push_back(std::move(*r));
  co_return out;
}

}  // namespace lockstep::algorithms::redisson

#endif  // LOCKSTEP_ALGORITHMS_REDISSON_JOIN_H_
