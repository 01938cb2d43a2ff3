#include "checker/report/page.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "sim/core/assert.h"

namespace lockstep::report {
namespace assets {
extern const std::string_view report_js;
extern const std::string_view report_css;
}  // namespace assets

namespace {

using json = nlohmann::json;

constexpr size_t kMaxFaultRows = 2000;  // rows of the faults table; the timeline has them all
constexpr size_t kMaxLegendLocks = 24;

std::string text_of(const json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

std::string verdict_badge(const std::string& v) {
  const std::string cls = v == "ok" || v == "violation" || v == "unknown" || v == "not_applicable" ? v : "unknown";
  return "<span class=\"verdict v-" + cls + "\">" + html_escape(v) + "</span>";
}

std::string seconds(int64_t us) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.3f s", static_cast<double>(us) / 1e6);
  return buf;
}

// The same hue report.js gives lock i.
std::string lock_colour(size_t i) {
  const double hue = std::fmod(static_cast<double>(i) * 137.508 + 200.0, 360.0);
  return "hsl(" + std::to_string(static_cast<int>(std::lround(hue)) % 360) + ",62%,46%)";
}

void header(const json& r, std::string& out) {
  const std::string verdict = text_of(r, "verdict");
  out += "<header>\n<h1>" + html_escape(text_of(r, "scenario")) + " " + verdict_badge(verdict.empty() ? "unknown" : verdict) + "</h1>\n";
  out += "<dl class=\"meta\">\n";
  auto row = [&](const char* dt, const std::string& dd_html) { out += "<dt>" + std::string(dt) + "</dt><dd>" + dd_html + "</dd>\n"; };
  row("scenario file", "<code>" + html_escape(text_of(r, "file")) + "</code>");
  row("seed", "<code id=\"seed\">" + html_escape(text_of(r, "seed")) + "</code>");
  row("algorithm", html_escape(text_of(r, "algorithm")));
  if (r.contains("mutant") && r["mutant"].is_object()) {
    // A mutant run must never pass for the real algorithm (algorithms/mutants).
    const json& m = r["mutant"];
    row("MUTANT", "<b id=\"mutant\" style=\"color:#9a0000\">" + html_escape(text_of(m, "name")) + "</b> replaces <code>" +
                      html_escape(text_of(m, "replaces")) + "</code>: " + html_escape(text_of(m, "broken")) +
                      " — not the real algorithm");
  }
  if (r.contains("expect") && r["expect"].is_object()) {
    std::string e = text_of(r["expect"], "verdict");
    if (r["expect"].contains("property")) e += " of " + text_of(r["expect"], "property");
    row("expected", html_escape(e));
  }
  if (r.contains("outcome")) {
    const bool as_expected = r.value("expected", true);
    row("outcome", html_escape(text_of(r, "outcome")) + (as_expected ? " <b>(as expected)</b>" : " <b style=\"color:#9a0000\">(NOT as expected)</b>"));
  }
  if (r.contains("replay")) row("replay", "<code class=\"replay\" id=\"replay\">" + html_escape(text_of(r, "replay")) + "</code>");
  if (r.contains("stats") && r["stats"].is_object()) {
    const json& s = r["stats"];
    row("run", html_escape(text_of(s, "virtual_ms") + " ms of virtual time, " + text_of(s, "events") + " events, " +
                           text_of(s, "operations") + " operations, " + text_of(s, "faults") + " faults"));
  }
  out += "</dl>\n</header>\n";
}

void verdicts(const json& r, std::string& out) {
  out += "<section id=\"verdicts\">\n<h2>Properties</h2>\n<table>\n<tr><th>property</th><th>verdict</th><th>reason</th></tr>\n";
  if (r.contains("properties") && r["properties"].is_array()) {
    for (const json& p : r["properties"]) {
      const std::string name = text_of(p, "name");
      out += "<tr data-property=\"" + html_escape(name) + "\" data-verdict=\"" + html_escape(text_of(p, "verdict")) + "\"><td>" +
             html_escape(name) + "</td><td>" + verdict_badge(text_of(p, "verdict")) + "</td><td>" + html_escape(text_of(p, "reason")) +
             "</td></tr>\n";
    }
  }
  out += "</table>\n</section>\n";
}

// The cause of `property`'s violation proven by replay (result.json "causes"), with the replays
// that prove it: which faults each kept and whether the violation happened again.
std::string cause_html(const json& r, const std::string& property) {
  if (!r.contains("causes") || !r["causes"].is_object() || !r["causes"].contains(property)) return "";
  const json& c = r["causes"][property];
  std::string out = "<div class=\"cause\" data-property=\"" + html_escape(property) + "\">\n<p><b>Cause</b>: " +
                    html_escape(text_of(c, "text")) + "</p>\n";
  if (c.contains("replays") && c["replays"].is_array() && !c["replays"].empty()) {
    out += "<table class=\"replays\"><tr><th>replay with faults</th><th>violated</th></tr>\n";
    for (const json& rep : c["replays"]) {
      std::string kept;
      if (rep.contains("kept") && rep["kept"].is_array()) {
        for (const json& k : rep["kept"]) kept += (kept.empty() ? "#" : ", #") + k.dump();
      }
      const bool violated = rep.value("violated", false);
      out += "<tr><td>" + (kept.empty() ? std::string("none") : html_escape(kept)) + "</td><td>" +
             (violated ? "yes" : "no") + "</td></tr>\n";
    }
    out += "</table>\n";
  }
  return out + "</div>\n";
}

void violations(const json& r, std::string& out) {
  std::string items;
  size_t i = 0;
  if (r.contains("properties") && r["properties"].is_array()) {
    for (const json& p : r["properties"]) {
      if (text_of(p, "verdict") != "violation") continue;
      std::string text;
      if (p.contains("explanation") && p["explanation"].is_object()) text = text_of(p["explanation"], "text");
      if (text.empty()) text = text_of(p, "reason");
      const std::string name = text_of(p, "name");
      items += "<div class=\"violation\" id=\"violation-" + std::to_string(i) + "\" data-property=\"" + html_escape(name) + "\">\n";
      items += "<h3>" + html_escape(name) + "</h3>\n<p class=\"explanation\">" + html_escape(text) + "</p>\n";
      items += cause_html(r, name);
      items += "<button type=\"button\" data-zoom-violation=\"" + std::to_string(i) + "\">Zoom to the violation</button>\n</div>\n";
      ++i;
    }
  }
  out += "<section id=\"violations\" data-count=\"" + std::to_string(i) + "\">\n<h2>Violations</h2>\n";
  out += i == 0 ? "<p class=\"muted\">None: no property was violated.</p>\n" : items;
  out += "</section>\n";
}

void legend(const json& t, std::string& out) {
  out += "<div class=\"legend\">";
  const json& locks = t["locks"];
  for (size_t i = 0; i < locks.size() && i < kMaxLegendLocks; ++i) {
    out += "<span style=\"--c:" + lock_colour(i) + "\">hold of " + html_escape(locks[i].get<std::string>()) + "</span>";
  }
  if (locks.size() > kMaxLegendLocks) out += "<span style=\"--c:#ccc\">… " + std::to_string(locks.size() - kMaxLegendLocks) + " more locks</span>";
  out += "<span style=\"--c:hsla(200,62%,62%,0.5)\">lock key alive on a node</span>"
         "<span style=\"--c:#444\">operation (invoke → reply; red: no reply)</span>"
         "<span style=\"--c:#e07000\">▲ key expired</span><span style=\"--c:#c00000\">▲ data lost / write rejected</span>"
         "<span style=\"--c:rgba(110,110,110,0.5)\">pause</span><span style=\"--c:rgba(170,20,20,0.5)\">crash</span>"
         "<span style=\"--c:rgba(120,60,200,0.4)\">partition</span><span style=\"--c:rgba(230,170,0,0.45)\">delay</span>"
         "<span style=\"--c:rgba(220,80,160,0.4)\">drop</span><span style=\"--c:#e07000\">clock jump / offset</span>"
         "<span style=\"--c:#1060c0\">failover / node event</span><span style=\"--c:rgba(230,0,0,0.25)\">violation window</span>";
  out += "</div>\n";
}

void notes(const json& t, std::string& out) {
  static const char* const kLayers[][2] = {{"holds", "holds"}, {"ops", "operations"}, {"keys", "key lifetimes"},
                                           {"markers", "markers"}, {"execs", "command executions"}, {"faults", "faults"}};
  std::string n;
  for (const auto& [key, noun] : kLayers) {
    const json& c = t["counts"][key];
    const uint64_t kept = c[0].get<uint64_t>(), total = c[1].get<uint64_t>();
    if (kept < total) n += "<li>showing " + std::to_string(kept) + " of " + std::to_string(total) + " " + noun + "</li>";
  }
  if (!n.empty()) {
    out += "<div class=\"note\" id=\"downsampled\">This history is large: the page embeds a bounded selection — everything "
           "around each violation, the rest thinned evenly. The history file has every event.<ul>" + n + "</ul></div>\n";
  }
  if (t.value("cut_short", false)) out += "<div class=\"note\">The history is longer than the report reads; the timeline stops early.</div>\n";
  if (!t.value("complete", true)) out += "<div class=\"note\">The history has no end line: the run was cut short.</div>\n";
}

void timeline(const json& t, std::string& out) {
  out += "<section id=\"timeline-section\">\n<h2>Timeline</h2>\n";
  out += "<div class=\"toolbar\"><button type=\"button\" id=\"btn-fit\">Fit</button><button type=\"button\" id=\"btn-in\">Zoom in</button>"
         "<button type=\"button\" id=\"btn-out\">Zoom out</button>";
  if (!t["violations"].empty()) out += "<button type=\"button\" id=\"btn-violation\">Zoom to the violation</button>";
  out += "<label><input type=\"checkbox\" id=\"show-ops\" checked> operations</label>"
         "<label><input type=\"checkbox\" id=\"show-keys\" checked> keys on nodes</label>"
         "<label><input type=\"checkbox\" id=\"show-execs\" checked> commands</label>"
         "<span class=\"muted\">wheel: zoom · drag: pan · shift+wheel: scroll rows · double-click: fit · hover: details</span></div>\n";
  legend(t, out);
  notes(t, out);
  out += "<div id=\"timeline-wrap\"><canvas id=\"timeline\" width=\"800\" height=\"300\"></canvas><div id=\"tooltip\"></div></div>\n";
  out += "<noscript><p class=\"note\">The timeline needs JavaScript; everything above reads without it.</p></noscript>\n";
  out += "</section>\n";
}

void faults(const json& r, std::string& out) {
  out += "<section id=\"faults\">\n<h2>Faults</h2>\n";
  if (!r.contains("faults") || !r["faults"].is_array() || r["faults"].empty()) {
    out += "<p class=\"muted\">No faults were injected.</p>\n</section>\n";
    return;
  }
  const json& f = r["faults"];
  out += "<table>\n<tr><th>#</th><th>at</th><th>kind</th><th>target</th><th>parameters</th></tr>\n";
  for (size_t i = 0; i < f.size() && i < kMaxFaultRows; ++i) {
    const int64_t at_ms = f[i].value("at_ms", int64_t{0});
    out += "<tr><td>" + html_escape(text_of(f[i], "fault")) + "</td><td>" + seconds(at_ms * 1000) + "</td><td>" +
           html_escape(text_of(f[i], "kind")) + "</td><td>" + html_escape(text_of(f[i], "target")) + "</td><td><code>" +
           html_escape(f[i].contains("params") ? f[i]["params"].dump() : "") + "</code></td></tr>\n";
  }
  out += "</table>\n";
  if (f.size() > kMaxFaultRows) out += "<p class=\"note\">" + std::to_string(f.size() - kMaxFaultRows) + " more faults (in result.json).</p>\n";
  out += "</section>\n";
}

// Coverage (docs/coverage.md): totals, the client states, and each script's lines with their
// hit counts, lines never executed marked. A result from elsewhere may lack it or be malformed:
// what does not have the expected shape is skipped.
void coverage(const json& r, std::string& out) {
  if (!r.contains("coverage") || !r["coverage"].is_object()) return;
  const json& c = r["coverage"];
  auto count = [](const json& j, const char* key) -> uint64_t {
    if (!j.is_object() || !j.contains(key) || !j[key].is_number_integer()) return 0;
    return j[key].is_number_unsigned() ? j[key].get<uint64_t>() : static_cast<uint64_t>(std::max<int64_t>(0, j[key].get<int64_t>()));
  };
  auto total = [&](const char* key) {
    const json t = c.contains(key) ? c[key] : json();
    return std::to_string(count(t, "reached")) + " of " + std::to_string(count(t, "total"));
  };
  out += "<section id=\"coverage\">\n<h2>Coverage</h2>\n<p>" + total("script_lines") + " script lines and " +
         total("client_states") + " client states reached in this run.</p>\n";
  if (c.contains("states") && c["states"].is_array() && !c["states"].empty()) {
    out += "<table class=\"coverage-states\">\n<tr><th>client state</th><th>times</th><th>meaning</th></tr>\n";
    for (const json& p : c["states"]) {
      if (!p.is_object()) continue;
      const uint64_t hits = count(p, "hits");
      out += std::string("<tr") + (hits == 0 ? " class=\"not-reached\"" : "") + "><td><code>" +
             html_escape(text_of(p, "name")) + "</code></td><td>" + std::to_string(hits) + "</td><td>" +
             html_escape(text_of(p, "meaning")) + "</td></tr>\n";
    }
    out += "</table>\n";
  }
  if (c.contains("scripts") && c["scripts"].is_array()) {
    for (const json& s : c["scripts"]) {
      if (!s.is_object() || !s.contains("lines") || !s["lines"].is_array()) continue;
      out += "<details class=\"coverage-script\"><summary><code>" + html_escape(text_of(s, "name")) + "</code>: " +
             std::to_string(count(s, "lines_reached")) + " of " + std::to_string(count(s, "lines_total")) +
             " lines reached</summary>\n<table>\n<tr><th>line</th><th>times</th><th>code</th></tr>\n";
      for (const json& l : s["lines"]) {
        if (!l.is_object()) continue;
        const uint64_t hits = count(l, "hits");
        out += std::string("<tr") + (hits == 0 ? " class=\"not-reached\"" : "") + "><td>" +
               std::to_string(count(l, "line")) + "</td><td>" + std::to_string(hits) + "</td><td><code>" +
               html_escape(text_of(l, "code")) + "</code></td></tr>\n";
      }
      out += "</table>\n</details>\n";
    }
  }
  out += "</section>\n";
}

}  // namespace

std::string html_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string script_safe_json(const json& j) {
  // Invalid UTF-8 in a history string must not make the page unrenderable: replace it.
  const std::string text = j.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  LS_ASSERT(out.find("</") == std::string::npos);
  return out;
}

std::string render_page(const json& result, const json& t) {
  LS_ASSERT(t.is_object() && t.contains("rows"));
  LS_ASSERT(result.is_object());
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<title>lockstep report: " + html_escape(text_of(result, "scenario")) + " seed " + html_escape(text_of(result, "seed")) + "</title>\n";
  // Registered first, so an error anywhere in the page's script is recorded, not lost.
  out += "<script>window.__lockstepErrors=[];window.onerror=function(m,s,l,c){window.__lockstepErrors.push(m+' (line '+l+':'+c+')');"
         "var e=document.getElementById('script-errors');if(e){e.textContent=window.__lockstepErrors.join('\\n');"
         "e.setAttribute('data-errors',String(window.__lockstepErrors.length));}"
         "var s=document.getElementById('render-status');if(s){s.setAttribute('data-status','error');}return false;};</script>\n";
  out += "<style>\n" + std::string(assets::report_css) + "</style>\n</head>\n<body>\n";
  header(result, out);
  verdicts(result, out);
  violations(result, out);
  timeline(t, out);
  faults(result, out);
  coverage(result, out);
  out += "<div id=\"script-errors\" data-errors=\"0\"></div>\n";
  out += "<div id=\"render-status\" data-status=\"pending\">not rendered (the timeline needs JavaScript)</div>\n";
  out += "<p class=\"muted\">Made by lockstep from " + html_escape(text_of(result, "history").empty() ? "the history" : text_of(result, "history")) +
         ". This page is self-contained: it fetches nothing.</p>\n";
  out += "<script type=\"application/json\" id=\"lockstep-data\">" + script_safe_json(t) + "</script>\n";
  out += "<script>\ntry {\n" + std::string(assets::report_js) +
         "\n} catch (e) { window.onerror(String(e && e.stack || e), '', 0, 0); }\n</script>\n";
  out += "</body>\n</html>\n";
  return out;
}

}  // namespace lockstep::report
