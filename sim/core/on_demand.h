// OnDemand<T>: a member that most objects never use, allocated by its first write.
//
// Reads of an absent one see a default-constructed T, so a reader never allocates. Used where
// thousands of objects each carry state that only a few ever have (a node connection's
// subscriptions or transaction), to keep the common object small (B5, docs/performance.md).
#ifndef LOCKSTEP_SIM_CORE_ON_DEMAND_H_
#define LOCKSTEP_SIM_CORE_ON_DEMAND_H_

#include <memory>

namespace lockstep {

template <typename T>
class OnDemand {
 public:
  // The value, or a default-constructed T if it was never written.
  const T& get() const {
    static const T kNone{};
    return p_ ? *p_ : kNone;
  }
  // The value, allocated now if it was absent.
  T& for_write() {
    if (!p_) p_ = std::make_unique<T>();
    return *p_;
  }
  explicit operator bool() const { return p_ != nullptr; }
  // REQUIRES: *this (present).
  T* operator->() const { return p_.get(); }
  // Frees it: reads see the default again.
  void reset() { p_.reset(); }

 private:
  std::unique_ptr<T> p_;
};

}  // namespace lockstep

#endif  // LOCKSTEP_SIM_CORE_ON_DEMAND_H_
