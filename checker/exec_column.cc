// ExecColumn (history.h): plain records for a small history, 40 bytes a run past them.
#include <algorithm>
#include <limits>

#include "checker/history.h"
#include "sim/core/assert.h"

namespace lockstep::checker {
namespace {

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

}  // namespace

size_t ExecColumn::ShapeHash::operator()(const Shape& s) const {
  uint64_t h = mix(s.node, s.conn);
  h = mix(h, (uint64_t{s.command} << 32) | s.script);
  h = mix(h, (uint64_t{s.keys_count} << 8) | static_cast<uint8_t>(s.reply));
  return static_cast<size_t>(h * 0xff51afd7ed558ccdULL >> 17);
}

int64_t ExecColumn::wide(const WideList& list, uint64_t index) {
  auto it = std::lower_bound(list.begin(), list.end(), index,
                             [](const std::pair<uint64_t, int64_t>& p, uint64_t i) { return p.first < i; });
  LS_ASSERT(it != list.end() && it->first == index);
  return it->second;
}

void ExecColumn::push_back(const Exec& exec) {
  if (!packed()) {
    if (plain_.size() < pack_after_) {
      plain_.push_back(exec);
      return;
    }
    for (const Exec& e : plain_) pack(e);
    plain_ = Column<Exec>();
  }
  pack(exec);
}

void ExecColumn::pack(const Exec& exec) {
  static_assert(sizeof(Packed) == 40);
  const uint64_t index = runs_.size();
  Packed p;
  p.t = exec.t;
  p.reply_int = exec.reply_int;
  p.line = exec.line;
  p.keys_begin = exec.keys_begin;

  const Shape shape{exec.node, exec.conn, exec.command, exec.script, exec.keys_count, exec.reply};
  if (exec.conn >= last_shape_of_conn_.size()) last_shape_of_conn_.resize(exec.conn + size_t{1}, 0);
  uint32_t& last = last_shape_of_conn_[exec.conn];
  if (last != 0 && shapes_[last - 1] == shape) {
    p.shape = last - 1;
  } else {
    auto [it, added] = shape_ids_.try_emplace(shape, static_cast<uint32_t>(shapes_.size()));
    if (added) {
      LS_ASSERT(shapes_.size() < UINT32_MAX - 1);
      shapes_.push_back(shape);
    }
    p.shape = it->second;
    last = p.shape + 1;
  }

  if (exec.seq >= 0 && exec.seq < kWide) {
    p.seq = static_cast<uint32_t>(exec.seq);
  } else {
    p.seq = kWide;
    wide_seq_.emplace_back(index, exec.seq);
  }

  if (exec.op_id == kAbsent) {
    p.op_id = kNarrowAbsent;
  } else if (exec.op_id >= 0 && exec.op_id < kNarrowAbsent) {
    p.op_id = static_cast<uint32_t>(exec.op_id);
  } else {
    p.op_id = kWide;
    wide_op_.emplace_back(index, exec.op_id);
  }

  int64_t delta = 0;
  if (exec.local_ms == kAbsent) {
    p.local_delta_ms = kDeltaAbsent;
  } else if (!__builtin_sub_overflow(exec.local_ms, exec.t / kUsPerMs, &delta) && delta > kDeltaWide &&
             delta <= std::numeric_limits<int32_t>::max()) {
    p.local_delta_ms = static_cast<int32_t>(delta);
  } else {
    p.local_delta_ms = kDeltaWide;
    wide_local_.emplace_back(index, exec.local_ms);
  }
  runs_.push_back(p);
}

Exec ExecColumn::unpack(size_t index) const {
  const Packed& p = runs_[index];
  const Shape& s = shapes_[p.shape];
  Exec e;
  e.t = p.t;
  e.node = s.node;
  e.conn = s.conn;
  e.command = s.command;
  e.script = s.script;
  e.seq = p.seq == kWide ? wide(wide_seq_, index) : p.seq;
  e.local_ms = p.local_delta_ms == kDeltaAbsent ? kAbsent
               : p.local_delta_ms == kDeltaWide ? wide(wide_local_, index)
                                                : p.local_delta_ms + p.t / kUsPerMs;
  e.op_id = p.op_id == kNarrowAbsent ? kAbsent : p.op_id == kWide ? wide(wide_op_, index) : p.op_id;
  e.keys_begin = p.keys_begin;
  e.keys_count = s.keys_count;
  e.reply_int = p.reply_int;
  e.line = p.line;
  e.reply = s.reply;
  return e;
}

static_assert(sizeof(ExecColumn::const_iterator) <= 16);

}  // namespace lockstep::checker
