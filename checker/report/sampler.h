// Sampler: keeps a bounded, deterministic selection of a report layer's items.
//
// Items that overlap a violation's window are kept first (up to half the cap), so zooming to a
// violation always shows everything around it; the others are thinned evenly: every item is
// kept until there are too many, then every other one, every fourth, and so on. The result is a
// pure function of the items in the order they were added.
#ifndef LOCKSTEP_CHECKER_REPORT_SAMPLER_H_
#define LOCKSTEP_CHECKER_REPORT_SAMPLER_H_

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "sim/core/assert.h"

namespace lockstep::report {

struct TimeWindow {
  int64_t t0_us = 0;
  int64_t t1_us = 0;
};

template <typename T>
class Sampler {
 public:
  Sampler(uint64_t cap, const std::vector<TimeWindow>& windows) : cap_(cap), windows_(windows) {
    LS_ASSERT(cap >= 2);
  }

  // Adds an item spanning [t0_us, t1_us] (t1_us < t0_us for open-ended items: until the end).
  void add(T item, int64_t t0_us, int64_t t1_us) {
    ++total_;
    if (in_window(t0_us, t1_us) && keep_.size() < cap_ / 2) {
      keep_.push_back({t0_us, std::move(item)});
      return;
    }
    if (seen_++ % stride_ != 0) return;
    rest_.push_back({t0_us, std::move(item)});
    if (rest_.size() > 2 * cap_) thin();  // between cap and 2 cap remain, for take() to pick from
  }

  // The kept items in start-time order (ties in the order added). At most cap of them.
  std::vector<T> take() {
    const size_t room = cap_ - keep_.size();
    if (rest_.size() > room) {
      std::vector<std::pair<int64_t, T>> r;
      const double step = static_cast<double>(rest_.size()) / static_cast<double>(room);
      for (size_t i = 0; i < room; ++i) r.push_back(std::move(rest_[static_cast<size_t>(step * static_cast<double>(i))]));
      rest_ = std::move(r);
    }
    std::vector<std::pair<int64_t, T>> all = std::move(keep_);
    for (auto& x : rest_) all.push_back(std::move(x));
    std::stable_sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<T> out;
    out.reserve(all.size());
    for (auto& x : all) out.push_back(std::move(x.second));
    LS_ASSERT(out.size() <= cap_);
    kept_ = out.size();
    return out;
  }

  uint64_t total() const { return total_; }
  uint64_t kept() const { return kept_; }

 private:
  bool in_window(int64_t t0, int64_t t1) const {
    for (const TimeWindow& w : windows_) {
      if (t0 <= w.t1_us && (t1 < t0 || t1 >= w.t0_us)) return true;
    }
    return false;
  }

  void thin() {
    std::vector<std::pair<int64_t, T>> half;
    for (size_t i = 0; i < rest_.size(); i += 2) half.push_back(std::move(rest_[i]));
    rest_ = std::move(half);
    stride_ *= 2;
    LS_ASSERT(rest_.size() <= cap_ + 1);
  }

  const uint64_t cap_;
  const std::vector<TimeWindow>& windows_;
  std::vector<std::pair<int64_t, T>> keep_;
  std::vector<std::pair<int64_t, T>> rest_;
  uint64_t total_ = 0;
  uint64_t seen_ = 0;
  uint64_t stride_ = 1;
  uint64_t kept_ = 0;
};

}  // namespace lockstep::report

#endif  // LOCKSTEP_CHECKER_REPORT_SAMPLER_H_
