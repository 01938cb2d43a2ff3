// Errors as values (LevelDB style).
//
// Bad input — a malformed scenario, a history line that does not parse — is reported through a
// Status that carries a complete, user-facing message naming the file, the place and the problem.
// Result<T> is a value or a Status; callers write `if (!r.ok()) return r.status();`.
#ifndef LOCKSTEP_SIM_CORE_STATUS_H_
#define LOCKSTEP_SIM_CORE_STATUS_H_

#include <optional>
#include <string>
#include <utility>

#include "sim/core/assert.h"

namespace lockstep {

class Status {
 public:
  Status() = default;
  static Status ok_status() { return Status(); }
  static Status error(std::string message) { return Status(std::move(message)); }

  bool ok() const { return !message_.has_value(); }
  // REQUIRES: !ok().
  const std::string& message() const {
    LS_ASSERT(!ok());
    return *message_;
  }

 private:
  explicit Status(std::string message) : message_(std::move(message)) {}
  std::optional<std::string> message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : status_(std::move(status)) { LS_ASSERT(!status_.ok()); }  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Status& status() const { return status_; }
  // REQUIRES: ok().
  T& value() {
    LS_ASSERT(ok());
    return *value_;
  }
  const T& value() const {
    LS_ASSERT(ok());
    return *value_;
  }

 private:
  std::optional<T> value_;
  Status status_;
};

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_STATUS_H_
