#include "checker/history.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "sim/core/assert.h"
#include "sim/core/hash.h"

namespace lockstep::checker {

bool HistoryHeader::quorum_lock() const {
  return quorum != kAbsent || lock_kind == LockKind::kRedlock || algorithm.rfind("redlock", 0) == 0;
}

SymbolTable::SymbolTable() {
  names_.emplace_back();
  views_.emplace_back(names_.back());
  hashes_.push_back(0);
  slots_.assign(1024, kNoSym);
}

size_t SymbolTable::slot_of(std::string_view text, uint64_t hash) const {
  const size_t mask = slots_.size() - 1;
  for (size_t i = hash & mask;; i = (i + 1) & mask) {
    const Sym s = slots_[i];
    if (s == kNoSym || (hashes_[s] == hash && views_[s] == text)) return i;
  }
}

void SymbolTable::grow() {
  std::vector<Sym> old(slots_.size() * 2, kNoSym);
  old.swap(slots_);
  const size_t mask = slots_.size() - 1;
  for (Sym s : old) {
    if (s == kNoSym) continue;
    size_t i = hashes_[s] & mask;
    while (slots_[i] != kNoSym) i = (i + 1) & mask;
    slots_[i] = s;
  }
}

Sym SymbolTable::intern(std::string_view text) {
  if (text.empty()) return kNoSym;
  const uint64_t hash = hash_bytes(text);
  size_t slot = slot_of(text, hash);
  if (slots_[slot] != kNoSym) return slots_[slot];
  LS_ASSERT(names_.size() < UINT32_MAX);
  const Sym sym = static_cast<Sym>(names_.size());
  names_.emplace_back(text);
  views_.emplace_back(names_.back());
  hashes_.push_back(hash);
  slots_[slot] = sym;
  if (names_.size() * 2 > slots_.size()) grow();
  return sym;
}

Sym SymbolTable::find(std::string_view text) const {
  if (text.empty()) return kNoSym;
  return slots_[slot_of(text, hash_bytes(text))];
}

std::string_view SymbolTable::name(Sym sym) const {
  LS_ASSERT(sym < names_.size());
  return views_[sym];
}

const char* lock_kind_name(LockKind kind) {
  switch (kind) {
    case LockKind::kReentrant: return "reentrant";
    case LockKind::kRwlock: return "rwlock";
    case LockKind::kSimple: return "simple";
    case LockKind::kRedlock: return "redlock";
  }
  return "?";
}

const char* op_kind_name(OpKind kind) {
  switch (kind) {
    case OpKind::kLock: return "lock";
    case OpKind::kTryLock: return "try_lock";
    case OpKind::kUnlock: return "unlock";
    case OpKind::kForceUnlock: return "force_unlock";
    case OpKind::kRenew: return "renew";
  }
  return "?";
}

const char* mode_name(Mode mode) {
  switch (mode) {
    case Mode::kExclusive: return "exclusive";
    case Mode::kRead: return "read";
    case Mode::kWrite: return "write";
  }
  return "?";
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kOk: return "ok";
    case Outcome::kFail: return "fail";
    case Outcome::kUnknown: return "unknown";
  }
  return "?";
}

int64_t FaultEvent::param(const SymbolTable& syms, std::string_view name) const {
  const Sym sym = syms.find(name);
  if (sym == kNoSym) return kAbsent;
  for (const auto& [key, value] : params) {
    if (key == sym) return value;
  }
  return kAbsent;
}

int64_t History::op_index(int64_t id) const {
  if (id >= 0 && static_cast<uint64_t>(id) < op_dense.size()) {
    const uint32_t v = op_dense[static_cast<size_t>(id)];
    if (v != 0) return static_cast<int64_t>(v) - 1;
  }
  auto it = op_by_id.find(id);
  return it == op_by_id.end() ? -1 : static_cast<int64_t>(it->second);
}

void History::index_op(int64_t id, uint32_t index) {
  LS_ASSERT(op_index(id) < 0);
  LS_ASSERT(index < UINT32_MAX);
  // Dense while ids stay within a few times the number of operations (no blow-up on sparse ids).
  const uint64_t limit = 4 * (static_cast<uint64_t>(ops.size()) + 1024);
  if (id >= 0 && static_cast<uint64_t>(id) < limit) {
    if (static_cast<uint64_t>(id) >= op_dense.size()) op_dense.resize(std::max<size_t>(static_cast<size_t>(id) + 1, op_dense.size() * 2), 0);
    op_dense[static_cast<size_t>(id)] = index + 1;
    return;
  }
  op_by_id.emplace(id, index);
}

std::string_view History::client_of(Sym thread) const {
  std::string_view name = syms.name(thread);
  const size_t slash = name.find('/');
  return slash == std::string_view::npos ? name : name.substr(0, slash);
}

bool link_fault_cuts(const History& h, const FaultEvent& f, std::string_view from, std::string_view to, bool surely) {
  const std::string_view target = h.str(f.target);
  auto names = [](std::string_view list, std::string_view who) {
    while (!list.empty()) {
      const size_t comma = list.find(',');
      if (list.substr(0, comma) == who) return true;
      if (comma == std::string_view::npos) break;
      list.remove_prefix(comma + 1);
    }
    return false;
  };
  if (f.is(FaultKind::kPartition)) {
    const bool one_way = target.find(" -> ") != std::string_view::npos;
    const std::string_view bar = one_way ? " -> " : " | ";
    std::vector<std::string_view> groups;
    for (std::string_view rest = target;;) {
      const size_t at = rest.find(bar);
      groups.push_back(rest.substr(0, at));
      if (at == std::string_view::npos) break;
      rest.remove_prefix(at + bar.size());
    }
    if (one_way) return groups.size() == 2 && names(groups[0], from) && names(groups[1], to);
    int from_group = -1, to_group = -1;
    for (size_t g = 0; g < groups.size(); ++g) {
      if (names(groups[g], from)) from_group = static_cast<int>(g);
      if (names(groups[g], to)) to_group = static_cast<int>(g);
    }
    return from_group >= 0 && to_group >= 0 && from_group != to_group;
  }
  if (surely ? !f.is(FaultKind::kDrop) || f.param(h.syms, "rate_ppm") != 1'000'000
             : !f.is(FaultKind::kDrop) && !f.is(FaultKind::kDelay)) {
    return false;
  }
  if (target == "all" || target == from || target == to) return true;
  const std::string f_to = std::string(from) + "->" + std::string(to);
  return target == f_to || target == std::string(from) + "<->" + std::string(to) ||
         target == std::string(to) + "<->" + std::string(from);
}

std::string clock_offset_phrase(int64_t offset_ms) {
  if (offset_ms == 0) return "to true time";
  return std::to_string(offset_ms > 0 ? offset_ms : -offset_ms) + " ms " + (offset_ms > 0 ? "ahead of" : "behind") + " true time";
}

std::string format_time(TimeUs t) {
  if (t == kTimeNever) return "end";
  char buf[48];
  const char* sign = t < 0 ? "-" : "";
  const int64_t a = t < 0 ? -t : t;
  std::snprintf(buf, sizeof buf, "%s%lld.%03lld s", sign, static_cast<long long>(a / kUsPerSecond),
                static_cast<long long>((a % kUsPerSecond) / kUsPerMs));
  return buf;
}

std::string format_time_beside(TimeUs t, std::initializer_list<TimeUs> others) {
  std::string text = format_time(t);
  const bool reads_alike = std::any_of(others.begin(), others.end(), [&](TimeUs other) {
    return other != t && other != kTimeNever && format_time(other) == text;
  });
  if (t == kTimeNever || !reads_alike) return text;
  const int64_t a = t < 0 ? -t : t;
  char micros[8];
  std::snprintf(micros, sizeof micros, "%03lld", static_cast<long long>(a % kUsPerMs));
  text.insert(text.size() - 2, micros);  // before " s"
  return text;
}

std::string format_span(TimeUs invoke_t, TimeUs complete_t) {
  return format_time_beside(invoke_t, {complete_t}) + " → " + format_time_beside(complete_t, {invoke_t});
}

}  // namespace lockstep::checker
