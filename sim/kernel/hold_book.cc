#include "sim/kernel/hold_book.h"

#include "sim/core/assert.h"

namespace lockstep::kernel {

HoldBook::Map::iterator HoldBook::find(const runtime::Thread& thread, std::string_view lock,
                                       history::LockMode mode) {
  return map().find(Key{thread.index, std::string(lock), static_cast<uint8_t>(mode)});
}

void HoldBook::acquired(TimeUs now, const runtime::Runtime& client, const runtime::Thread& thread,
                        std::string_view lock, history::LockMode mode, int64_t op, int64_t token) {
  Hold& h = map()[Key{thread.index, std::string(lock), static_cast<uint8_t>(mode)}];
  LS_ASSERT(h.count >= 0 && h.count < INT32_MAX);
  if (h.count++ != 0) return;
  h.thread = &thread;
  h.token = token;
  rec_.hold_begin(now, thread.name, client.owner_name(thread), lock, mode, op, token);
  if (beliefs_ != nullptr) {
    h.belief = beliefs_->size();
    beliefs_->push_back(Belief{thread.name, std::string(lock), mode, now, kTimeNever, history::HoldEnd::kEnd});
  }
}

void HoldBook::end(TimeUs now, Map::iterator it, history::HoldEnd reason) {
  const Hold& h = it->second;
  const auto mode = static_cast<history::LockMode>(std::get<2>(it->first));
  rec_.hold_end(now, h.thread->name, std::get<1>(it->first), reason, mode);
  if (beliefs_ != nullptr && h.belief < beliefs_->size()) {
    Belief& b = (*beliefs_)[h.belief];
    b.end_us = now;
    b.reason = reason;
  }
}

void HoldBook::unlocking(TimeUs now, const runtime::Thread& thread, std::string_view lock,
                         history::LockMode mode) {
  auto it = find(thread, lock, mode);
  if (it == map().end()) return;
  LS_ASSERT(it->second.count > 0);
  if (--it->second.count > 0) return;
  end(now, it, history::HoldEnd::kUnlock);
  map().erase(it);
}

void HoldBook::lost(TimeUs now, const runtime::Thread& thread, std::string_view lock,
                    history::LockMode mode) {
  auto it = find(thread, lock, mode);
  if (it == map().end()) return;
  end(now, it, history::HoldEnd::kLost);
  map().erase(it);
}

void HoldBook::end_all(TimeUs now, history::HoldEnd reason) {
  if (!holds_) return;
  for (auto it = map().begin(); it != map().end(); ++it) end(now, it, reason);
  map().clear();
}

int64_t HoldBook::begin_op(TimeUs now, std::string_view owner, const runtime::OpRecord& record) {
  LS_ASSERT(record.thread != nullptr);
  history::Invoke inv;
  inv.thread = record.thread->name;
  inv.owner = owner;
  inv.lock = record.lock;
  inv.op = record.op;
  inv.mode = record.mode;
  inv.lease_ms = record.lease_ms;
  return rec_.invoke(now, inv);
}

void HoldBook::end_op(TimeUs now, int64_t op, const runtime::OpResult& result) {
  history::Completion c;
  c.outcome = result.outcome;
  c.renewed = result.renewed;
  c.error = result.error;
  rec_.complete(now, op, c);
}

int64_t HoldBook::count(const runtime::Thread& thread, std::string_view lock,
                        history::LockMode mode) const {
  auto it = map().find(Key{thread.index, std::string(lock), static_cast<uint8_t>(mode)});
  return it == map().end() ? 0 : it->second.count;
}

int64_t HoldBook::token(const runtime::Thread& thread, std::string_view lock) const {
  for (uint8_t mode = 0; mode < 3; ++mode) {
    auto it = map().find(Key{thread.index, std::string(lock), mode});
    if (it != map().end()) return it->second.token;
  }
  return history::kAbsent;
}

}  // namespace lockstep::kernel
