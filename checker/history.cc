#include "checker/history.h"

#include <cstdio>

#include "sim/core/assert.h"

namespace lockstep::checker {

SymbolTable::SymbolTable() {
  names_.emplace_back();
  ids_.emplace(std::string_view(names_.back()), kNoSym);
}

Sym SymbolTable::intern(std::string_view text) {
  auto it = ids_.find(text);
  if (it != ids_.end()) return it->second;
  LS_ASSERT(names_.size() < UINT32_MAX);
  const Sym sym = static_cast<Sym>(names_.size());
  names_.emplace_back(text);
  ids_.emplace(std::string_view(names_.back()), sym);
  return sym;
}

Sym SymbolTable::find(std::string_view text) const {
  auto it = ids_.find(text);
  return it == ids_.end() ? kNoSym : it->second;
}

std::string_view SymbolTable::name(Sym sym) const {
  LS_ASSERT(sym < names_.size());
  return names_[sym];
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
  auto it = op_by_id.find(id);
  return it == op_by_id.end() ? -1 : static_cast<int64_t>(it->second);
}

std::string_view History::client_of(Sym thread) const {
  std::string_view name = syms.name(thread);
  const size_t slash = name.find('/');
  return slash == std::string_view::npos ? name : name.substr(0, slash);
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

}  // namespace lockstep::checker
