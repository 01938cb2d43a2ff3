#!/usr/bin/env bash
# Lua algorithms and the scorecard end to end (docs/lua-algorithms.md, docs/cli.md): run with a
# Lua file, --lua and --algorithm in place of a scenario's own, list --lua, a Lua error's exit code
# and message, and lockstep scorecard's outputs and exit codes.
# Usage: lua_cli_test.sh LOCKSTEP_BINARY SOURCE_DIR
. "$(dirname "$0")/cli_lib.sh"

tutorial=$src/examples/lua/simple-lock-short-lease.json
lock=$src/examples/lua/simple-lock.lua

# The tutorial's scenario: the violation it expects (exit 0), the history names the Lua algorithm.
"$bin" run "$tutorial" --out "$work/t" > "$work/t.txt" 2>&1
[ $? -eq 0 ] || fail "tutorial: expected exit 0: $(cat "$work/t.txt")"
grep -q "mutual_exclusion  violation" "$work/t.txt" || fail "tutorial: no violation: $(cat "$work/t.txt")"
head -1 "$work/t/history.jsonl" | grep -q '"algorithm": "tutorial-simple-lock"' || fail "tutorial: header names no algorithm"

# --lua and --algorithm replace a library scenario's algorithm; both at once is bad usage.
"$bin" run "$src/scenarios/edge/redisson-lock-watchdog-pause.json" --lua "$lock" --out "$work/l" > "$work/l.txt" 2>&1
[ $? -eq 0 ] || fail "--lua: expected exit 0: $(cat "$work/l.txt")"
grep -q "the algorithm itself" "$work/l.txt" || fail "--lua: the lease-without-renewal cause is not named: $(cat "$work/l.txt")"
"$bin" run "$src/scenarios/edge/redlock-spec-restart-no-persistence.json" --algorithm redsync --out "$work/r" > "$work/r.txt" 2>&1
grep -q "^quorum  *violation" "$work/r.txt" || fail "--algorithm redsync: no quorum violation: $(cat "$work/r.txt")"
"$bin" run "$tutorial" --lua "$lock" --algorithm redsync > "$work/b.txt" 2>&1
[ $? -eq 2 ] || fail "--lua with --algorithm: expected exit 2"

# list --lua shows the declaration; a missing file is exit 2 naming it.
"$bin" list algorithms --lua "$lock" > "$work/list.txt" 2>&1 || fail "list --lua failed: $(cat "$work/list.txt")"
grep -q "tutorial-simple-lock" "$work/list.txt" || fail "list --lua: the algorithm is not listed"
"$bin" list algorithms --lua "$work/none.lua" > "$work/list2.txt" 2>&1
[ $? -eq 2 ] || fail "list --lua of a missing file: expected exit 2"
grep -q "none.lua" "$work/list2.txt" || fail "list --lua: the missing file is not named"

# An error in the user's Lua: exit 2, the file and line, no half-written outputs.
mkdir -p "$work/bad"
cat > "$work/bad/lock.lua" <<'LUA'
return {
  name = "cli-test-broken",
  acquire = function(thread, req)
    local missing = nil
    return missing.field
  end,
  release = function() return true end,
}
LUA
sed 's#"file": "simple-lock.lua", "options": { "lease_ms": 2000 }#"file": "lock.lua"#' "$tutorial" > "$work/bad/s.json"
"$bin" run "$work/bad/s.json" --out "$work/bad/out" > "$work/bad.txt" 2>&1
[ $? -eq 2 ] || fail "a Lua error: expected exit 2: $(cat "$work/bad.txt")"
grep -q "lock.lua:5: attempt to index local 'missing'" "$work/bad.txt" || fail "a Lua error: no file and line: $(cat "$work/bad.txt")"
[ -e "$work/bad/out/history.jsonl" ] && fail "a Lua error left a history behind"

# explore on a scenario that names a Lua file: the shrunk scenario names the file by its absolute
# path, so it replays from any directory.
mkdir -p "$work/x"
cp "$lock" "$work/x/"
sed 's/"expect": { "verdict": "violation", "property": "mutual_exclusion" }/"expect": { "verdict": "ok" }/' "$tutorial" > "$work/x/s.json"
"$bin" explore "$work/x/s.json" --seeds 2 -j 2 --out "$work/x/out" > "$work/x.txt" 2>&1
[ $? -eq 1 ] || fail "explore of a Lua scenario: expected exit 1 (unexpected violations): $(cat "$work/x.txt")"
grep -q "\"file\": \"$work/x/simple-lock.lua\"" "$work/x/out/shrunk.json" || fail "explore: the shrunk scenario does not name the Lua file absolutely"
(cd / && "$bin" run "$work/x/out/shrunk.json" --out "$work/x/replay" > "$work/x2.txt" 2>&1)
grep -q "mutual_exclusion  violation" "$work/x2.txt" || fail "the shrunk Lua scenario does not replay from /: $(cat "$work/x2.txt")"

# The scorecard: two edge cases x two algorithms plus the tutorial's Lua lock.
mkdir -p "$work/edge"
cp "$src/scenarios/edge/redisson-lock-short-lease.json" "$src/scenarios/edge/redlock-spec-restart-no-persistence.json" "$work/edge/"
"$bin" scorecard --scenarios "$work/edge" --algorithm set-nx-px --algorithm redsync --lua "$lock" --out "$work/sc" > "$work/sc.txt" 2>&1
[ $? -eq 0 ] || fail "scorecard: expected exit 0: $(cat "$work/sc.txt")"
for f in scorecard.html scorecard.json scorecard.csv; do [ -s "$work/sc/$f" ] || fail "scorecard: $f missing"; done
grep -q "6 cell(s)" "$work/sc.txt" || fail "scorecard: expected 6 cells: $(cat "$work/sc.txt")"
grep -q "^redsync,redlock-spec-restart-no-persistence,quorum,violation$" "$work/sc/scorecard.csv" || fail "scorecard: no redsync quorum violation"
grep -q "^tutorial-simple-lock,redisson-lock-short-lease,mutual_exclusion,violation$" "$work/sc/scorecard.csv" || fail "scorecard: the Lua lock's row is missing"
[ -f "$work/sc/runs/redsync/redlock-spec-restart-no-persistence/report.html" ] || fail "scorecard: a cell's report is missing"
cp "$work/sc/scorecard.json" "$work/sc1.json"
"$bin" scorecard --scenarios "$work/edge" --algorithm set-nx-px --algorithm redsync --lua "$lock" --out "$work/sc" > /dev/null 2>&1
cmp -s "$work/sc/scorecard.json" "$work/sc1.json" || fail "scorecard: two runs differ"
# A scorecard that stops early (here at a malformed scenario) leaves no page of the one before.
mkdir "$work/bad-edge"
cp "$work/edge/"*.json "$work/bad-edge/"
echo '{"name": "x", "algorithm": ' > "$work/bad-edge/zz-malformed.json"
"$bin" scorecard --scenarios "$work/bad-edge" --algorithm set-nx-px --out "$work/sc" > "$work/scb.txt" 2>&1
[ $? -eq 2 ] || fail "scorecard with a malformed scenario: expected exit 2: $(cat "$work/scb.txt")"
grep -q "zz-malformed.json: not a JSON object" "$work/scb.txt" || fail "scorecard: the malformed file is not named: $(cat "$work/scb.txt")"
for f in scorecard.html scorecard.json scorecard.csv; do
  [ ! -e "$work/sc/$f" ] || fail "scorecard: the previous scorecard's $f is left beside the new runs"
done
"$bin" scorecard --scenarios "$work/edge" --algorithm nope --out "$work/sc2" > "$work/sc2.txt" 2>&1
[ $? -eq 2 ] || fail "scorecard --algorithm nope: expected exit 2"
"$bin" scorecard --scenarios "$work/nowhere" --out "$work/sc3" > "$work/sc3.txt" 2>&1
[ $? -eq 2 ] || fail "scorecard of a missing folder: expected exit 2"

# serve --trace to a file that cannot be written: exit 2 naming it, before listening.
# `pairs` over keys that are tables (Lua places them by address) visits them in the same order in
# every process: the client's Lua memory comes from an arena whose addresses replay
# (sim/core/det_arena.h). The token lists the waiting threads in `pairs` order; with the process
# allocator, three runs of one seed wrote three different histories.
sed 's/local token = lockstep.owner(thread) .. ":" .. lockstep.random(1, 2^40)/waiting = waiting or {}; waiting[thread] = true; local order = {}; for t in pairs(waiting) do order[#order + 1] = t.index end; local token = lockstep.owner(thread) .. ":" .. table.concat(order, ",")/' \
  "$lock" > "$work/pairs.lua"
grep -q "in pairs(waiting)" "$work/pairs.lua" || fail "pairs: the tutorial's token line was not found"
cat > "$work/pairs.json" <<'JSON'
{"name": "pairs-order", "duration_ms": 20000, "algorithm": {"file": "pairs.lua"},
 "clients": {"count": 4, "threads": 4},
 "workload": {"generator": {"ops_per_thread": 5, "locks": ["L"], "lease_ms": [2000], "hold_ms": [10, 50],
                            "think_ms": [0, 20], "wait_ms": [5000]}}}
JSON
for i in 1 2 3; do
  "$bin" run "$work/pairs.json" --out "$work/p$i" > "$work/p$i.txt" 2>&1 || fail "pairs: run $i failed: $(cat "$work/p$i.txt")"
done
grep -q '"args": \["L", "[^"]*:[0-9]*,[0-9]' "$work/p1/history.jsonl" || fail "pairs: no token lists two threads (the test proves nothing)"
cmp -s "$work/p1/history.jsonl" "$work/p2/history.jsonl" && cmp -s "$work/p1/history.jsonl" "$work/p3/history.jsonl" ||
  fail "pairs: three runs of one seed wrote different histories"

"$bin" serve --port 0 --trace "$work/no/such/dir/trace.jsonl" > "$work/tr.txt" 2>&1
[ $? -eq 2 ] || fail "serve --trace to a missing folder: expected exit 2"
grep -q "trace.jsonl: cannot open for writing" "$work/tr.txt" || fail "serve --trace: the file is not named: $(cat "$work/tr.txt")"

echo "PASS"
