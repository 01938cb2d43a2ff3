// LineParser: one JSONL event line → LineFields, with simdjson On-Demand.
#include "checker/history_line.h"

namespace lockstep::checker::internal {
namespace {

const char* json_type_name(od::json_type type) {
  switch (type) {
    case od::json_type::array: return "an array";
    case od::json_type::object: return "an object";
    case od::json_type::number: return "a number";
    case od::json_type::string: return "a string";
    case od::json_type::boolean: return "a boolean";
    case od::json_type::null: return "null";
  }
  return "something else";
}

}  // namespace

Status LineParser::type_error(std::string_view name, const char* expected, od::value& value) {
  od::json_type type = od::json_type::null;
  const bool invalid = value.type().get(type) != simdjson::SUCCESS;
  const char* found = invalid ? "invalid JSON" : json_type_name(type);
  if (!invalid && type == od::json_type::string && std::string_view(expected).starts_with("a string")) {
    // A string that does not decode: simdjson's reason, said plainly.
    std::string_view text;
    const simdjson::error_code error = value.get_string().get(text);
    const std::string why = error == simdjson::STRING_ERROR || error == simdjson::UTF8_ERROR
                                ? "an escape or bytes that do not decode (a lone \\uD800-\\uDFFF surrogate, an unknown escape, or bytes that are not UTF-8)"
                                : simdjson::error_message(error);
    return Status::error("field '" + std::string(name) + "': expected a string, found one that does not decode: " + why);
  }
  return Status::error("field '" + std::string(name) + "': expected " + expected + ", found " +
                       found);
}

Status LineParser::repeated(std::string_view name, uint64_t bit, const LineFields& out) {
  if ((out.present & bit) == 0) return Status();
  return Status::error("field '" + std::string(name) + "' appears twice in the line (which value counts is not defined)");
}

Status LineParser::get_int(std::string_view name, od::value& value, int64_t& out) {
  if (value.get_int64().get(out)) return type_error(name, "an integer", value);
  return Status();
}

Status LineParser::get_str(std::string_view name, od::value& value, std::string_view& out) {
  if (value.get_string().get(out)) return type_error(name, "a string", value);
  return Status();
}

Status LineParser::get_bool(std::string_view name, od::value& value, bool& out) {
  if (value.get_bool().get(out)) return type_error(name, "true or false", value);
  return Status();
}

Status LineParser::get_keys(od::value& value, LineFields& out) {
  od::array array;
  if (value.get_array().get(array)) return type_error("keys", "an array of strings", value);
  for (auto element : array) {
    std::string_view key;
    if (element.get_string().get(key)) {
      return Status::error("field 'keys': expected an array of strings, found another element");
    }
    out.keys.push_back(key);
  }
  return Status();
}

// A plain command's `args` start with its key (docs/history-format.md); only that one is kept.
Status LineParser::get_first_arg(od::value& value, LineFields& out) {
  od::array array;
  if (value.get_array().get(array)) return type_error("args", "an array", value);
  bool first = true;
  for (auto element : array) {  // every element is visited, so simdjson leaves the array whole
    std::string_view arg;
    if (first && !element.get_string().get(arg)) {
      out.first_arg = arg;
      out.present |= kFirstArg;
    }
    first = false;
  }
  return Status();
}

Status LineParser::get_reply(od::value& value, LineFields& out) {
  od::json_type type;
  if (value.type().get(type)) return Status::error("field 'reply': invalid JSON");
  out.reply_int = 0;
  switch (type) {
    case od::json_type::null: out.reply = ReplyKind::kNil; return Status();
    case od::json_type::number:
      out.reply = ReplyKind::kInt;
      if (value.get_int64().get(out.reply_int)) out.reply = ReplyKind::kOther;
      return Status();
    case od::json_type::string: out.reply = ReplyKind::kString; return Status();
    case od::json_type::array: {
      // The first element, when an integer, is kept in reply_int: the fenced lock's acquire
      // replies {-1, token} on a grant and {pttl, -1} otherwise.
      out.reply = ReplyKind::kArray;
      od::array array;
      if (value.get_array().get(array)) return Status::error("field 'reply': invalid JSON");
      bool first = true;
      for (auto element : array) {  // every element is visited, so simdjson leaves the array whole
        int64_t n = 0;
        if (first && !element.get_int64().get(n)) out.reply_int = n;
        first = false;
      }
      return Status();
    }
    case od::json_type::boolean: out.reply = ReplyKind::kOther; return Status();
    case od::json_type::object: break;
  }
  od::object object;
  if (value.get_object().get(object)) return Status::error("field 'reply': invalid JSON");
  out.reply = ReplyKind::kOther;
  for (auto f : object) {
    std::string_view k;
    if (f.unescaped_key().get(k)) return Status::error("field 'reply': invalid JSON");
    if (k == "ok") out.reply = ReplyKind::kStatus;
    if (k == "err") {
      std::string_view text;
      const bool noscript = !f.value().get_string().get(text) && text.starts_with("NOSCRIPT");
      out.reply = noscript ? ReplyKind::kNoScript : ReplyKind::kError;
    }
  }
  return Status();
}

// `value` of a state event: null, or an object with `type` and the contents in any of the
// spellings docs/history-format.md allows (an array of members, or of [member, score] pairs,
// or an object of field → value).
Status LineParser::get_state_value(od::value& value, LineFields& out) {
  bool is_null = false;
  if (!value.is_null().get(is_null) && is_null) {
    out.value_null = true;
    return Status();
  }
  od::object object;
  if (value.get_object().get(object)) return type_error("value", "an object or null", value);
  for (auto f : object) {
    std::string_view k;
    od::value v;
    if (f.unescaped_key().get(k) || f.value().get(v)) return Status::error("field 'value': invalid JSON");
    od::json_type type;
    if (v.type().get(type)) return Status::error("field 'value': invalid JSON");
    if (k == "type") {
      if (v.get_string().get(out.value_type)) return type_error("value/type", "a string", v);
    } else if (k == "expire_at_ms") {
      if (v.get_int64().get(out.value_expire_at_ms)) return type_error("value/expire_at_ms", "an integer", v);
    } else if (type == od::json_type::array) {
      od::array array = v.get_array();
      for (auto element : array) {
        od::value e;
        if (element.get(e)) return Status::error("field 'value': invalid JSON");
        std::string_view text;
        if (!e.get_string().get(text)) {
          out.members.push_back(text);
          continue;
        }
        od::array pair;
        if (e.get_array().get(pair)) continue;  // numbers in a parallel scores array: ignored
        int index = 0;
        for (auto part : pair) {
          od::value pv;
          if (part.get(pv)) return Status::error("field 'value': invalid JSON");
          std::string_view raw = pv.raw_json_token();
          if (index == 0 && !pv.get_string().get(text)) out.members.push_back(text);
          if (index == 1) out.values.push_back(raw);
          ++index;
        }
      }
    } else if (type == od::json_type::object) {
      od::object map = v.get_object();
      for (auto entry : map) {
        std::string_view field;
        od::value fv;
        if (entry.unescaped_key().get(field) || entry.value().get(fv)) {
          return Status::error("field 'value': invalid JSON");
        }
        std::string_view text;
        if (fv.get_string().get(text)) text = fv.raw_json_token();
        out.members.push_back(field);
        out.values.push_back(text);
      }
    }
  }
  return Status();
}

Status LineParser::get_params(od::value& value, LineFields& out) {
  od::object object;
  if (value.get_object().get(object)) return type_error("params", "an object", value);
  for (auto f : object) {
    std::string_view k;
    od::value v;
    if (f.unescaped_key().get(k) || f.value().get(v)) return Status::error("field 'params': invalid JSON");
    int64_t number;
    if (!v.get_int64().get(number)) out.params.emplace_back(k, number);
  }
  return Status();
}

Status LineParser::field(std::string_view name, od::value value, LineFields& out) {
  auto str = [&](uint64_t bit, std::string_view& dst) {
    if (Status s = repeated(name, bit, out); !s.ok()) return s;
    out.present |= bit;
    return get_str(name, value, dst);
  };
  auto num = [&](uint64_t bit, int64_t& dst) {
    if (Status s = repeated(name, bit, out); !s.ok()) return s;
    out.present |= bit;
    return get_int(name, value, dst);
  };
  auto flag = [&](uint64_t bit, bool& dst) {
    if (Status s = repeated(name, bit, out); !s.ok()) return s;
    out.present |= bit;
    return get_bool(name, value, dst);
  };
  // The fields read by a function of their own: a second occurrence is refused here.
  auto once = [&](uint64_t bit) {
    Status s = repeated(name, bit, out);
    out.present |= bit;
    return s;
  };
  switch (name.size()) {
    case 1: if (name == "t") return num(kT, out.t); break;
    case 2:
      if (name == "id") return num(kId, out.id);
      if (name == "op") {
        if (Status s = repeated(name, kOpInt | kOpStr, out); !s.ok()) return s;
        od::json_type type;
        if (!value.type().get(type) && type == od::json_type::number) return num(kOpInt, out.op_int);
        return str(kOpStr, out.op_str);
      }
      break;
    case 3:
      if (name == "seq") return num(kSeq, out.seq);
      if (name == "key") return str(kKey, out.key);
      break;
    case 4:
      if (name == "type") return str(kType, out.type);
      if (name == "lock") return str(kLock, out.lock);
      if (name == "mode") return str(kMode, out.mode);
      if (name == "node") return str(kNode, out.node);
      if (name == "conn") return str(kConn, out.conn);
      if (name == "keys") {
        if (Status s = once(kKeys); !s.ok()) return s;
        return get_keys(value, out);
      }
      if (name == "args") {
        if (args_seen_) return Status::error("field 'args' appears twice in the line (which value counts is not defined)");
        args_seen_ = true;
        return get_first_arg(value, out);
      }
      if (name == "kind") return str(kKind, out.kind);
      break;
    case 5:
      if (name == "owner") return str(kOwner, out.owner);
      if (name == "count") return num(kCount, out.count);
      if (name == "token") return num(kToken, out.token);
      if (name == "error") return str(kError, out.error);
      if (name == "reply") {
        if (Status s = once(kReply); !s.ok()) return s;
        return get_reply(value, out);
      }
      if (name == "value") {
        if (Status s = once(kValue); !s.ok()) return s;
        return get_state_value(value, out);
      }
      if (name == "event") return str(kEvent, out.event);
      if (name == "fault") return num(kFault, out.fault);
      if (name == "phase") return str(kPhase, out.phase);
      break;
    case 6:
      if (name == "thread") return str(kThread, out.thread);
      if (name == "reason") return str(kReason, out.reason);
      if (name == "fenced") return flag(kFenced, out.fenced);
      if (name == "script") return str(kScript, out.script);
      if (name == "target") return str(kTarget, out.target);
      if (name == "params") {
        if (Status s = once(kParams); !s.ok()) return s;
        return get_params(value, out);
      }
      break;
    case 7:
      if (name == "outcome") return str(kOutcome, out.outcome);
      if (name == "renewed") return flag(kRenewed, out.renewed);
      if (name == "wait_ms") return num(kWait, out.wait_ms);
      if (name == "command") return str(kCommand, out.command);
      if (name == "blocked") return flag(kBlocked, out.blocked);
      if (name == "channel") return str(kChannel, out.channel);
      if (name == "message") {
        if (Status s = once(kMessage); !s.ok()) return s;
        int64_t number;
        if (!value.get_int64().get(number)) {
          out.message_buf = std::to_string(number);
          out.message = out.message_buf;
          return Status();
        }
        return get_str(name, value, out.message);
      }
      break;
    case 8:
      if (name == "acquired") return flag(kAcquired, out.acquired);
      if (name == "released") return flag(kReleased, out.released);
      if (name == "lease_ms") {
        // null: no lease at all (the lock never expires by itself), docs/history-format.md.
        if (Status s = repeated(name, kLease, out); !s.ok()) return s;
        if (value.is_null().value_unsafe()) {
          out.present |= kLease;
          out.lease_ms = kNoLeaseMs;
          return Status();
        }
        return num(kLease, out.lease_ms);
      }
      if (name == "resource") return str(kResource, out.resource);
      if (name == "accepted") return flag(kAccepted, out.accepted);
      if (name == "local_ms") return num(kLocal, out.local_ms);
      if (name == "complete") return flag(kComplete, out.complete);
      break;
    case 9:
      if (name == "receivers") return num(kReceivers, out.receivers);
      break;
    case 11:
      if (name == "watchdog_ms") return num(kWatchdog, out.watchdog_ms);
      if (name == "validity_ms") return num(kValidity, out.validity_ms);
      break;
    default: break;
  }
  return Status();  // unknown extra field: ignored (the format promises it)
}

Status LineParser::parse(const char* data, size_t len, size_t capacity, LineFields& out) {
  out.reset();
  args_seen_ = false;
  od::document doc;
  if (auto error = parser_.iterate(data, len, capacity).get(doc)) {
    return Status::error(std::string("not valid JSON (") + simdjson::error_message(error) + ")");
  }
  od::object object;
  if (auto error = doc.get_object().get(object)) {
    if (error == simdjson::INCORRECT_TYPE) return Status::error("expected a JSON object");
    return Status::error(std::string("not valid JSON (") + simdjson::error_message(error) + ")");
  }
  for (auto f : object) {
    std::string_view name;
    od::value value;
    if (f.unescaped_key().get(name) || f.value().get(value)) {
      return Status::error("not valid JSON (a field could not be read)");
    }
    Status s = field(name, value, out);
    if (!s.ok()) return s;
  }
  // On-Demand stops reading after the object; text after it would go unnoticed otherwise.
  size_t last = len;
  while (last > 0 && (data[last - 1] == ' ' || data[last - 1] == '\t')) --last;
  if (last == 0 || data[last - 1] != '}') return Status::error("not valid JSON (text after the object)");
  return Status();
}

}  // namespace lockstep::checker::internal
