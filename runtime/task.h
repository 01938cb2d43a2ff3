// Task<T>: the coroutine type every simulated thread, watchdog and lock client is written in.
//
// A Task is lazy: creating it runs nothing. `co_await task` starts it and suspends the caller
// until it finishes; finishing resumes the caller by symmetric transfer, so arbitrarily deep
// await chains use no stack. A Task owns its coroutine frame: destroying the Task destroys the
// frame and, recursively, every child Task the frame was awaiting (their awaiters cancel their
// pending waits in their destructors). That is how a crashed process's threads disappear.
//
// A Task nobody awaits is a root: a process starts it (Process::spawn) and is told through
// RootListener when it finishes, so it can free the frame. Exceptions are not used in simulated
// code; an exception escaping a task is a programmer error and terminates.
//
// This header depends only on the standard library, so a live backend can drive the same Tasks
// with its own executor.
#ifndef LOCKSTEP_RUNTIME_TASK_H_
#define LOCKSTEP_RUNTIME_TASK_H_

#include <coroutine>
#include <cstdint>
#include <exception>
#include <optional>
#include <utility>

#include "sim/core/assert.h"

namespace lockstep::runtime {

// Told when a root task (one with no awaiting parent) reaches its end.
class RootListener {
 public:
  virtual ~RootListener() = default;
  // Called from inside the finished coroutine's final suspension: it must not destroy the frame
  // synchronously, only note it for destruction once control returns to the event loop.
  virtual void root_finished(uint32_t root_index) = 0;
};

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation;
  RootListener* root_listener = nullptr;
  uint32_t root_index = 0;

  std::suspend_always initial_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { std::terminate(); }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> self) noexcept {
      PromiseBase& p = self.promise();
      if (p.continuation) return p.continuation;
      if (p.root_listener != nullptr) p.root_listener->root_finished(p.root_index);
      return std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
};

template <typename T>
struct Promise : PromiseBase {
  std::optional<T> value;
  void return_value(T v) { value.emplace(std::move(v)); }
};

template <>
struct Promise<void> : PromiseBase {
  void return_void() noexcept {}
};

}  // namespace detail

template <typename T = void>
class [[nodiscard]] Task {
 public:
  struct promise_type : detail::Promise<T> {
    Task get_return_object() {
      return Task(std::coroutine_handle<promise_type>::from_promise(*this));
    }
  };
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool valid() const { return static_cast<bool>(handle_); }
  bool done() const { return handle_ && handle_.done(); }
  Handle handle() const { return handle_; }

  // Destroys the frame (and the frames it awaits). Safe on an empty Task.
  void reset() {
    if (handle_) std::exchange(handle_, {}).destroy();
  }

  // Marks this task as a root reporting its end to `listener` under `index`.
  // REQUIRES: valid() and not yet started.
  void make_root(RootListener* listener, uint32_t index) {
    LS_ASSERT(handle_);
    LS_ASSERT(!handle_.done());
    handle_.promise().root_listener = listener;
    handle_.promise().root_index = index;
  }

  struct Awaiter {
    Handle handle;
    bool await_ready() const noexcept { return false; }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept {
      LS_ASSERT(handle);
      LS_ASSERT(!handle.promise().continuation);
      handle.promise().continuation = caller;
      return handle;
    }
    T await_resume() {
      LS_ASSERT(handle.done());
      if constexpr (!std::is_void_v<T>) {
        LS_ASSERT(handle.promise().value.has_value());
        return std::move(*handle.promise().value);
      }
    }
  };
  // REQUIRES: valid(), not started, awaited at most once.
  Awaiter operator co_await() && {
    LS_ASSERT(handle_);
    return Awaiter{handle_};
  }
  Awaiter operator co_await() & {
    LS_ASSERT(handle_);
    return Awaiter{handle_};
  }

 private:
  explicit Task(Handle h) : handle_(h) {}
  Handle handle_;
};

}  // namespace lockstep::runtime

#endif  // LOCKSTEP_RUNTIME_TASK_H_
