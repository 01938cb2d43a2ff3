// lockstep report: draws the run's timeline on a <canvas> from the JSON embedded in the page.
// No network, no libraries. Errors are caught by the handler in <head> (window.onerror) and
// shown in #script-errors; #render-status says "rendered" once the first frame is drawn.
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('lockstep-data').textContent);
  var S = data.strs, LOCKS = data.locks, ROWS = data.rows;
  var ROW_H = 20, LABEL_W = 170, AXIS_H = 26, MAX_VIEW_H = 640;
  var canvas = document.getElementById('timeline');
  var tip = document.getElementById('tooltip');
  var ctx = canvas.getContext('2d');
  var T_END = Math.max(1, data.t_end);
  var view = { t0: 0, t1: T_END, scroll: 0 };
  var show = { ops: true, execs: true, keys: true };
  var width = 800, height = 300;

  // ---- indexing: each layer's items per row, by start time (they arrive sorted) ----
  function byRow(items, rowOf) {
    var rows = [];
    for (var r = 0; r < ROWS.length; r++) rows.push([]);
    for (var i = 0; i < items.length; i++) {
      var list = rowOf(items[i]);
      for (var k = 0; k < list.length; k++) if (rows[list[k]]) rows[list[k]].push(i);
    }
    return rows;
  }
  var L = {
    holds: byRow(data.holds, function (h) { return [h[0]]; }),
    ops: byRow(data.ops, function (o) { return [o[0]]; }),
    keys: byRow(data.keys, function (k) { return [k[0]]; }),
    markers: byRow(data.markers, function (m) { return [m[0]]; }),
    execs: byRow(data.execs, function (e) { return [e[0]]; }),
    faults: byRow(data.faults, function (f) { return f[6]; })
  };

  // ---- colours ----
  function lockColour(i, alpha) {
    var hue = Math.round((i * 137.508 + 200) % 360);
    return 'hsla(' + hue + ',62%,' + (alpha < 1 ? '62%' : '46%') + ',' + alpha + ')';
  }
  var MIN_HOLD_PX = 3;
  // Strong colours for the fault strips drawn over holds (FAULT_COLOURS are pale row bands).
  var FAULT_STRIP_COLOURS = {
    pause: '#6b6b6b', crash: '#b03030', partition: '#7a4fc0', delay: '#c09020', drop: '#c04080',
    replication_lag: '#3070b0', clock_drift: '#d06000', clock_offset: '#d06000', lose_reply: '#a01010'
  };
  var FAULT_COLOURS = {
    pause: 'rgba(110,110,110,0.28)', crash: 'rgba(170,20,20,0.30)', restart: '#2a8a2a',
    delay: 'rgba(230,170,0,0.25)', drop: 'rgba(220,80,160,0.22)', partition: 'rgba(120,60,200,0.22)',
    clock_jump: '#e07000', clock_offset: 'rgba(224,112,0,0.20)', clock_drift: 'rgba(224,112,0,0.14)',
    failover: '#1060c0', replication_lag: 'rgba(0,150,150,0.22)', lose_reply: 'rgba(140,80,20,0.25)'
  };

  // ---- geometry ----
  function x(t) { return LABEL_W + (t - view.t0) / (view.t1 - view.t0) * (width - LABEL_W); }
  function tAt(px) { return view.t0 + (px - LABEL_W) / (width - LABEL_W) * (view.t1 - view.t0); }
  function rowY(r) { return AXIS_H + r * ROW_H - view.scroll; }
  function contentH() { return ROWS.length * ROW_H; }
  function visibleRows() {
    var first = Math.max(0, Math.floor(view.scroll / ROW_H));
    var last = Math.min(ROWS.length - 1, Math.floor((view.scroll + height - AXIS_H) / ROW_H));
    return [first, last];
  }
  function fmtTime(us, step) {
    var digits = step >= 1e6 ? 0 : Math.min(6, Math.max(0, 6 - Math.floor(Math.log10(Math.max(1, step)))));
    return (us / 1e6).toFixed(digits) + ' s';
  }
  function fmtExact(us) { return (us / 1e6).toFixed(6) + ' s'; }

  function resize() {
    var wrap = canvas.parentNode;
    width = Math.max(400, wrap.clientWidth || 800);
    height = Math.min(MAX_VIEW_H, AXIS_H + contentH() + 2);
    var dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(width * dpr);
    canvas.height = Math.round(height * dpr);
    canvas.style.width = width + 'px';
    canvas.style.height = height + 'px';
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    clampView();
  }
  function clampView() {
    var span = view.t1 - view.t0;
    var minSpan = 10, maxSpan = T_END * 1.2;
    if (span < minSpan) { var c = (view.t0 + view.t1) / 2; view.t0 = c - minSpan / 2; view.t1 = c + minSpan / 2; }
    if (span > maxSpan) { view.t0 = -T_END * 0.1; view.t1 = T_END * 1.1; }
    var maxScroll = Math.max(0, contentH() - (height - AXIS_H));
    view.scroll = Math.min(Math.max(0, view.scroll), maxScroll);
  }

  // ---- drawing ----
  function span(t0, t1) {
    var end = t1 < t0 ? T_END : t1;
    return [x(t0), Math.max(x(end), x(t0) + 1)];
  }
  function forRow(layer, r, items, fn) {
    var list = L[layer][r];
    for (var k = 0; k < list.length; k++) {
      var it = items[list[k]];
      fn(it, list[k]);
    }
  }
  function visible(a, b) { return b >= LABEL_W && a <= width; }

  function drawFaults(r, y) {
    forRow('faults', r, data.faults, function (f) {
      var kind = S[f[1]], s = span(f[3], f[4]);
      var colour = FAULT_COLOURS[kind] || 'rgba(0,0,0,0.2)';
      if (S[f[7]] === 'instant') return;  // drawn on top, by drawInstants
      if (!visible(s[0], s[1])) return;
      ctx.fillStyle = colour;
      ctx.fillRect(s[0], y, s[1] - s[0], ROW_H);
      if (s[1] - s[0] > 40) {
        ctx.fillStyle = 'rgba(0,0,0,0.65)';
        ctx.font = '10px sans-serif';
        ctx.fillText(kind, Math.max(s[0], LABEL_W) + 3, y + 9);
      }
    });
  }
  // Span faults again as a strip along the bottom of the row, over the holds and operations: a
  // paused client's row shows its pause even under the hold it was paused in.
  function drawFaultStrips(r, y) {
    forRow('faults', r, data.faults, function (f) {
      if (S[f[7]] === 'instant') return;
      var kind = S[f[1]], s = span(f[3], f[4]);
      if (!visible(s[0], s[1])) return;
      var colour = FAULT_STRIP_COLOURS[kind] || '#888';
      ctx.fillStyle = colour;
      ctx.fillRect(s[0], y + ROW_H - 6, Math.max(2, s[1] - s[0]), 5);
      if (s[1] - s[0] > 60) {
        ctx.fillStyle = colour;
        ctx.font = 'bold 9px sans-serif';
        ctx.fillText(kind + ' #' + f[0], Math.max(s[0], LABEL_W) + 3, y + ROW_H - 8);
      }
    });
  }
  // Instant faults (clock jumps, failovers, client crashes, restarts): a line with a diamond,
  // drawn over the bars so they are never hidden.
  function drawInstants(r, y) {
    forRow('faults', r, data.faults, function (f) {
      if (S[f[7]] !== 'instant') return;
      var px = x(f[3]);
      if (px < LABEL_W - 4 || px > width + 4) return;
      var kind = S[f[1]];
      ctx.fillStyle = FAULT_COLOURS[kind] && FAULT_COLOURS[kind].charAt(0) === '#' ? FAULT_COLOURS[kind] : '#a01010';
      ctx.fillRect(px - 1, y, 2, ROW_H);
      ctx.beginPath();
      ctx.moveTo(px, y + ROW_H / 2 - 5); ctx.lineTo(px + 5, y + ROW_H / 2);
      ctx.lineTo(px, y + ROW_H / 2 + 5); ctx.lineTo(px - 5, y + ROW_H / 2);
      ctx.closePath();
      ctx.fill();
    });
  }
  function drawKeys(r, y) {
    if (!show.keys) return;
    forRow('keys', r, data.keys, function (k) {
      var s = span(k[3], k[4]);
      if (!visible(s[0], s[1])) return;
      ctx.fillStyle = lockColour(k[1], 0.5);
      ctx.fillRect(s[0], y + 4, s[1] - s[0], ROW_H - 8);
      if (s[1] - s[0] > 50) {
        ctx.fillStyle = '#111';
        ctx.font = '10px sans-serif';
        ctx.fillText(S[k[2]], Math.max(s[0], LABEL_W) + 3, y + 14);
      }
    });
  }
  function drawHolds(r, y) {
    forRow('holds', r, data.holds, function (h) {
      var s = span(h[2], h[3]);
      if (!visible(s[0], s[1])) return;
      // A short hold keeps a visible width at any zoom (a 100 ms hold in a 2-minute run).
      if (s[1] - s[0] < MIN_HOLD_PX) s[1] = s[0] + MIN_HOLD_PX;
      ctx.fillStyle = lockColour(h[1], 1);
      ctx.fillRect(s[0], y + 3, s[1] - s[0], ROW_H - 9);
      var end = S[h[5]];
      if (end === 'lost' || end === 'crash') {
        ctx.strokeStyle = end === 'crash' ? '#b00000' : '#000';
        ctx.setLineDash([3, 2]);
        ctx.strokeRect(s[0] + 0.5, y + 3.5, s[1] - s[0] - 1, ROW_H - 10);
        ctx.setLineDash([]);
      }
      if (s[1] - s[0] > 30) {
        ctx.fillStyle = '#fff';
        ctx.font = '10px sans-serif';
        ctx.fillText(LOCKS[h[1]] + (h[4] === 1 ? ' (r)' : h[4] === 2 ? ' (w)' : ''), Math.max(s[0], LABEL_W) + 3, y + 13);
      }
    });
  }
  function drawOps(r, y) {
    if (!show.ops) return;
    forRow('ops', r, data.ops, function (o) {
      var s = span(o[3], o[4]);
      if (!visible(s[0], s[1])) return;
      var outcome = S[o[5]];
      ctx.fillStyle = outcome === 'ok' ? (o[6] === 0 ? '#999' : '#444') : outcome === 'fail' ? '#c06000' : '#d00000';
      ctx.fillRect(s[0], y + ROW_H - 5, s[1] - s[0], 2);
      ctx.fillRect(s[0], y + ROW_H - 7, 1, 6);
    });
  }
  function drawExecs(r, y) {
    if (!show.execs) return;
    ctx.fillStyle = 'rgba(40,40,40,0.55)';
    var lastX = -1;
    forRow('execs', r, data.execs, function (e) {
      var px = Math.round(x(e[1]));
      if (px < LABEL_W || px > width || px === lastX) return;
      lastX = px;
      ctx.fillRect(px, y + ROW_H - 4, 1, 4);
    });
  }
  function drawMarkers(r, y) {
    forRow('markers', r, data.markers, function (m) {
      var px = x(m[1]);
      if (px < LABEL_W - 4 || px > width + 4) return;
      var kind = S[m[2]];
      ctx.fillStyle = kind === 'expire' ? '#e07000' : kind === 'data_loss' || kind === 'write_rejected' ? '#c00000' :
        kind === 'write' ? '#2a6a2a' : '#1060c0';
      ctx.beginPath();
      ctx.moveTo(px, y + 2); ctx.lineTo(px + 4, y + 9); ctx.lineTo(px - 4, y + 9);
      ctx.closePath();
      ctx.fill();
    });
  }
  function drawViolations(rows) {
    var drawn = 0;
    for (var i = 0; i < data.violations.length; i++) {
      var v = data.violations[i];
      // Mutual exclusion shades exactly the overlap of the two holds; other properties their
      // story's window.
      var overlap = v.o0 !== undefined, s = overlap ? span(v.o0, v.o1) : span(v.t0, v.t1);
      ctx.fillStyle = overlap ? 'rgba(230,0,0,0.22)' : 'rgba(230,0,0,0.10)';
      var a = Math.max(s[0], LABEL_W), b = Math.min(Math.max(s[1], s[0] + 3), width);
      if (b >= a) ctx.fillRect(a, AXIS_H, Math.max(2, b - a), height - AXIS_H);
      ctx.strokeStyle = '#e00000';
      ctx.lineWidth = 2;
      for (var k = 0; k < v.rows.length; k++) {
        var r = v.rows[k];
        if (r < rows[0] || r > rows[1]) continue;
        ctx.strokeRect(s[0] - 2, rowY(r) + 1, Math.max(4, s[1] - s[0] + 4), ROW_H - 2);
      }
      ctx.lineWidth = 1;
      drawn++;
    }
    return drawn;
  }
  function drawAxis() {
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, AXIS_H);
    var spanUs = view.t1 - view.t0, raw = spanUs / 8;
    var mag = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1)))), step = mag;
    [1, 2, 5, 10].some(function (m) { step = m * mag; return step >= raw; });
    ctx.font = '11px sans-serif';
    ctx.textAlign = 'center';
    for (var t = Math.ceil(view.t0 / step) * step, n = 0; t <= view.t1 && n < 40; t += step, n++) {
      var px = x(t);
      if (px < LABEL_W) continue;
      ctx.fillStyle = '#ddd';
      ctx.fillRect(px, AXIS_H, 1, height - AXIS_H);
      ctx.fillStyle = '#333';
      ctx.fillText(fmtTime(t, step), px, 16);
    }
    ctx.textAlign = 'left';
    ctx.fillStyle = '#888';
    ctx.fillRect(LABEL_W, AXIS_H - 1, width - LABEL_W, 1);
  }
  function drawLabels(rows) {
    ctx.fillStyle = '#f6f6f6';
    ctx.fillRect(0, AXIS_H, LABEL_W, height - AXIS_H);
    ctx.font = '11px monospace';
    for (var r = rows[0]; r <= rows[1]; r++) {
      var y = rowY(r), row = ROWS[r];
      ctx.fillStyle = row.kind === 'node' ? '#1050a0' : row.kind === 'network' ? '#6030a0' : '#222';
      ctx.fillText(row.name.length > 22 ? row.name.slice(0, 21) + '…' : row.name, 6, y + 14);
      if (r > 0 && ROWS[r - 1].group !== row.group) {
        ctx.fillStyle = '#bbb';
        ctx.fillRect(0, y, width, 1);
      }
    }
    ctx.fillStyle = '#ccc';
    ctx.fillRect(LABEL_W - 1, AXIS_H, 1, height - AXIS_H);
  }

  var violationsDrawn = 0;
  function draw() {
    ctx.clearRect(0, 0, width, height);
    ctx.fillStyle = '#fff';
    ctx.fillRect(0, 0, width, height);
    var rows = visibleRows();
    for (var r = rows[0]; r <= rows[1]; r++) {
      var y = rowY(r);
      if (r % 2 === 1) { ctx.fillStyle = '#fafafa'; ctx.fillRect(LABEL_W, y, width - LABEL_W, ROW_H); }
      drawFaults(r, y);
      drawKeys(r, y);
      drawHolds(r, y);
      drawFaultStrips(r, y);
      drawOps(r, y);
      drawExecs(r, y);
      drawMarkers(r, y);
      drawInstants(r, y);
    }
    violationsDrawn = drawViolations(rows);
    drawLabels(rows);
    drawAxis();
  }

  // ---- tooltips ----
  function hit(r, t, tolUs) {
    var found = [];
    function near(a, b) { var e = b < a ? T_END : b; return t >= a - tolUs && t <= e + tolUs; }
    if (!L.holds[r]) return found;
    forRow('holds', r, data.holds, function (h) {
      if (near(h[2], h[3])) found.push('hold ' + LOCKS[h[1]] + ' ' + ['exclusive', 'read', 'write'][h[4]] + ': ' +
        fmtExact(h[2]) + ' → ' + fmtExact(h[3]) + ' (' + S[h[5]] + ')' + (h[6] >= 0 ? ', token ' + h[6] : '') + ', op #' + h[7]);
    });
    if (show.ops) forRow('ops', r, data.ops, function (o) {
      if (near(o[3], o[4])) found.push('op #' + o[7] + ' ' + S[o[2]] + ' ' + LOCKS[o[1]] + ': ' + fmtExact(o[3]) + ' → ' +
        (o[4] < 0 ? 'no reply' : fmtExact(o[4])) + ' ' + S[o[5]] + (o[6] === 1 ? ' (yes)' : o[6] === 0 ? ' (no)' : ''));
    });
    if (show.keys) forRow('keys', r, data.keys, function (k) {
      if (near(k[3], k[4])) found.push('key ' + S[k[2]] + ' held by ' + ROWS[k[6]].name + ': ' + fmtExact(k[3]) + ' → ' +
        fmtExact(k[4]) + ' (' + S[k[5]] + ')');
    });
    forRow('markers', r, data.markers, function (m) { if (near(m[1], m[1])) found.push(fmtExact(m[1]) + ' ' + S[m[3]]); });
    if (show.execs) forRow('execs', r, data.execs, function (e) {
      if (near(e[1], e[1]) && found.length < 12) found.push(fmtExact(e[1]) + ' ' + S[e[2]] + ' from ' + S[e[3]] + (e[4] >= 0 ? ' (op #' + e[4] + ')' : ''));
    });
    forRow('faults', r, data.faults, function (f) {
      if (near(f[3], S[f[7]] === 'instant' ? f[3] : f[4])) found.push('fault #' + f[0] + ' ' + S[f[1]] + ' ' + S[f[2]] + ' ' +
        S[f[5]] + ': ' + fmtExact(f[3]) + (S[f[7]] === 'instant' ? '' : ' → ' + fmtExact(f[4])));
    });
    return found.slice(0, 14);
  }
  function onMove(ev) {
    var rect = canvas.getBoundingClientRect(), px = ev.clientX - rect.left, py = ev.clientY - rect.top;
    if (drag) {
      var dt = (px - drag.x) / (width - LABEL_W) * (drag.t1 - drag.t0);
      view.t0 = drag.t0 - dt; view.t1 = drag.t1 - dt;
      view.scroll = drag.scroll - (py - drag.y);
      clampView(); draw(); tip.style.display = 'none';
      return;
    }
    if (px < LABEL_W || py < AXIS_H) { tip.style.display = 'none'; return; }
    var r = Math.floor((py - AXIS_H + view.scroll) / ROW_H);
    if (r < 0 || r >= ROWS.length) { tip.style.display = 'none'; return; }
    var t = tAt(px), tol = 4 / (width - LABEL_W) * (view.t1 - view.t0);
    var lines = hit(r, t, tol);
    tip.textContent = ROWS[r].name + ' at ' + fmtExact(Math.round(t)) + (lines.length ? '\n' + lines.join('\n') : '');
    tip.style.display = 'block';
    tip.style.left = Math.min(px + 14, width - 320) + 'px';
    tip.style.top = (py + 14) + 'px';
  }

  // ---- interaction ----
  var drag = null;
  function zoomAround(t, factor) {
    view.t0 = t - (t - view.t0) * factor;
    view.t1 = t + (view.t1 - t) * factor;
    clampView(); draw();
  }
  function setView(t0, t1) { view.t0 = t0; view.t1 = t1; clampView(); draw(); }
  function fit() { setView(0, T_END); }
  // The view zoomTo(i) shows: violation i's story window with a quarter of it (at least 2 s)
  // either side. Exported for the tests (window.lockstepViewFor).
  function viewFor(v) {
    var pad = Math.max((v.t1 - v.t0) * 0.25, 2000);
    return [v.t0 - pad, v.t1 + pad];
  }
  window.lockstepViewFor = viewFor;
  function zoomTo(i, keepPage) {
    var v = data.violations[i];
    if (!v) return;
    if (v.rows.length) {
      view.scroll = Math.max(0, v.rows[0] * ROW_H - 2 * ROW_H);
    }
    var w = viewFor(v);
    setView(w[0], w[1]);
    if (!keepPage) canvas.scrollIntoView({ block: 'nearest' });
  }
  canvas.addEventListener('wheel', function (ev) {
    ev.preventDefault();
    var rect = canvas.getBoundingClientRect();
    if (ev.shiftKey) { view.scroll += ev.deltaY; clampView(); draw(); return; }
    zoomAround(tAt(ev.clientX - rect.left), ev.deltaY > 0 ? 1.25 : 0.8);
  }, { passive: false });
  canvas.addEventListener('mousedown', function (ev) {
    var rect = canvas.getBoundingClientRect();
    drag = { x: ev.clientX - rect.left, y: ev.clientY - rect.top, t0: view.t0, t1: view.t1, scroll: view.scroll };
  });
  window.addEventListener('mouseup', function () { drag = null; });
  canvas.addEventListener('mousemove', onMove);
  canvas.addEventListener('mouseleave', function () { tip.style.display = 'none'; });
  canvas.addEventListener('dblclick', fit);
  function button(id, fn) { var b = document.getElementById(id); if (b) b.addEventListener('click', fn); }
  button('btn-fit', fit);
  button('btn-in', function () { zoomAround((view.t0 + view.t1) / 2, 0.5); });
  button('btn-out', function () { zoomAround((view.t0 + view.t1) / 2, 2); });
  button('btn-violation', function () { zoomTo(0); });
  var zooms = document.querySelectorAll('[data-zoom-violation]');
  for (var i = 0; i < zooms.length; i++) {
    zooms[i].addEventListener('click', function (ev) { zoomTo(Number(ev.currentTarget.getAttribute('data-zoom-violation'))); });
  }
  ['ops', 'execs', 'keys'].forEach(function (name) {
    var box = document.getElementById('show-' + name);
    if (box) box.addEventListener('change', function () { show[name] = box.checked; draw(); });
  });
  window.addEventListener('keydown', function (ev) {
    if (ev.target && ev.target.tagName === 'INPUT') return;
    var w = view.t1 - view.t0;
    if (ev.key === '+' || ev.key === '=') zoomAround(view.t0 + w / 2, 0.5);
    else if (ev.key === '-') zoomAround(view.t0 + w / 2, 2);
    else if (ev.key === 'ArrowLeft') setView(view.t0 - w * 0.2, view.t1 - w * 0.2);
    else if (ev.key === 'ArrowRight') setView(view.t0 + w * 0.2, view.t1 + w * 0.2);
  });
  window.addEventListener('resize', function () { resize(); draw(); });

  resize();
  draw();
  // A link to report.html#violation opens zoomed to the first violation.
  // The page opens zoomed to the first violation (Fit shows the whole run); a link to
  // report.html#violation also scrolls the page to the timeline.
  if (data.violations.length) zoomTo(0, window.location.hash !== '#violation');
  var status = document.getElementById('render-status');
  status.setAttribute('data-status', 'rendered');
  status.setAttribute('data-rows', String(ROWS.length));
  status.setAttribute('data-violations-drawn', String(violationsDrawn));
  // What the page opened on, and what it shades for the first violation (for the tests).
  status.setAttribute('data-view', Math.round(view.t0) + ',' + Math.round(view.t1));
  if (data.violations.length) {
    var v0 = data.violations[0];
    status.setAttribute('data-shaded', v0.o0 !== undefined ? v0.o0 + ',' + v0.o1 : v0.t0 + ',' + v0.t1);
  }
  status.setAttribute('data-items', String(data.holds.length + data.ops.length + data.keys.length + data.markers.length +
    data.execs.length + data.faults.length));
  status.textContent = 'rendered: ' + ROWS.length + ' rows, ' + data.holds.length + ' holds, ' + violationsDrawn + ' violation(s) marked';
})();
