#!/usr/bin/env bash
# `lockstep explore` interrupted and resumed (issue 14): Ctrl-C stops the workers, writes the
# summary of the seeds that finished (marked interrupted) and exits 130; `--resume DIR` runs
# the rest, and the final explore.json is byte-identical to one uninterrupted exploration.
# Usage: explore_cli_test.sh LOCKSTEP_BINARY SOURCE_DIR
. "$(dirname "$0")/cli_lib.sh"

# The generic redisson-lock profile, heavier so that a seed takes some milliseconds.
python3 - "$src/tests/false_alarms/profiles/redisson-lock.json" "$work/heavy.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["workload"]["generator"]["ops_per_thread"] = 200
d["clients"] = {"count": 6, "threads": 2}
json.dump(d, open(sys.argv[2], "w"))
PY

mkdir -p "$work/u" "$work/i"
(cd "$work/u" && "$bin" explore ../heavy.json --seeds 200 -j 2 --out ex > ../u.txt 2>&1)
rc=$?
[ $rc -le 1 ] || fail "the uninterrupted exploration failed ($rc): $(cat "$work/u.txt")"

# Interrupt once some seeds have finished (the progress line says how many).
interrupted_after 0.4 "$work/i" "$work/i.txt" "$work/i.err" explore ../heavy.json --seeds 200 -j 1 --out ex
rc=$?
[ $rc -eq 130 ] || fail "expected exit 130 after SIGINT, got $rc: $(cat "$work/i.txt" "$work/i.err")"
grep -q '"interrupted": true' "$work/i/ex/explore.json" || fail "explore.json is not marked interrupted"
grep -q "resume: lockstep explore --resume ex" "$work/i.txt" || fail "no resume hint: $(cat "$work/i.txt")"
grep -q "interrupted: [0-9]* of 200 seeds ran" "$work/i.txt" || fail "no count of finished seeds: $(cat "$work/i.txt")"
grep -q "interrupted; finishing the summary" "$work/i.err" || fail "no interruption message: $(cat "$work/i.err")"
[ -e "$work/i/ex/explore.json.tmp" ] && fail "a temporary file was left"
[ -e "$work/i/ex/shrunk.json" ] && fail "an interrupted exploration shrank"

# A closed terminal's hangup reaches the whole process group: the workers ignore it, and the
# parent writes the summary of the seeds that finished as after Ctrl-C (exit 129).
mkdir -p "$work/hup"
(cd "$work/hup" && exec "$bin" explore ../heavy.json --seeds 200 -j 2 --out ex > ../hup.txt 2> ../hup.err) &
pid=$!
sleep 0.4
pkill -HUP -P $pid  # the workers, as a hangup of the process group reaches them (not this script's group)
sleep 0.3           # a worker that died of it would be a crashed seed by now
kill -HUP $pid
wait $pid
rc=$?
[ $rc -eq 129 ] || fail "expected exit 129 after SIGHUP, got $rc: $(cat "$work/hup.txt" "$work/hup.err")"
grep -q '"interrupted": true' "$work/hup/ex/explore.json" || fail "SIGHUP: explore.json is not marked interrupted"
grep -q '"crashed"' "$work/hup/ex/explore.json" && fail "SIGHUP: a worker died of it and was counted as a crashed seed"

# In a log (stderr not a terminal) a plain progress line comes every LOCKSTEP_PROGRESS_EVERY_S
# (the run is stopped once it came).
(cd "$work" && LOCKSTEP_PROGRESS_EVERY_S=1 exec "$bin" explore heavy.json --seeds 200 -j 1 --no-shrink --out pg > pg.txt 2> pg.err) &
pid=$!
line='^seeds [0-9]+/200, [0-9]+ with violations, [0-9]+ not as expected, [0-9]+/s, about [0-9]+ (s|min) left$'
for _ in $(seq 1200); do grep -Eqs "$line" "$work/pg.err" && break; sleep 0.05; done
kill -INT $pid 2>/dev/null
wait $pid 2>/dev/null
grep -Eq "$line" "$work/pg.err" || fail "no progress line in the log: $(cat "$work/pg.err")"
grep -q $'\r' "$work/pg.err" && fail "a terminal's progress line went to the log"

# Resuming a complete exploration, or with a scenario given too: exit 2.
(cd "$work/u" && "$bin" explore --resume ex > ../r0.txt 2>&1)
[ $? -eq 2 ] || fail "--resume of a complete exploration should be refused"
grep -q "ran to the end; there is nothing to resume" "$work/r0.txt" || fail "no message: $(cat "$work/r0.txt")"
(cd "$work/i" && "$bin" explore ../heavy.json --resume ex > ../r1.txt 2>&1)
[ $? -eq 2 ] || fail "--resume with a scenario should be refused"

# The resumption killed without warning (SIGKILL, the OOM killer) once its checkpoint
# (--checkpoint-every) holds more seeds than the interruption left: resumed again, from another
# directory, the result is the uninterrupted one's, byte for byte.
seeds_run() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["seeds_run"])' "$1" 2>/dev/null || echo 0; }
before=$(seeds_run "$work/i/ex/explore.json")
(cd "$work/i" && exec "$bin" explore --resume ex -j 1 --checkpoint-every 1 > ../r.txt 2>&1) &
pid=$!
for _ in $(seq 1200); do [ "$(seeds_run "$work/i/ex/explore.json")" -gt "$before" ] && break; sleep 0.05; done
kill -KILL $pid 2>/dev/null
wait $pid 2>/dev/null
grep -q "resuming: [0-9]* seeds from" "$work/r.txt" || fail "the resumed run does not say what it resumes: $(cat "$work/r.txt")"
[ "$(seeds_run "$work/i/ex/explore.json")" -gt "$before" ] || fail "no checkpoint with more seeds was written: $(cat "$work/r.txt")"
grep -q '"interrupted": true' "$work/i/ex/explore.json" || fail "the checkpoint is not marked interrupted"
grep -q "\"dir\": \"$work/i\"" "$work/i/ex/explore.json" || fail "the checkpoint does not say where the exploration ran"
sleep 0.2
pgrep -f "explore --resume ex -j 1 --checkpoint-every 1" > /dev/null && fail "a worker outlived its killed parent"
# Resumed from another directory: the scenario, named relative to where the run began, is found.
(cd / && "$bin" explore --resume "$work/i/ex" -j 2 > "$work/kr.txt" 2>&1)
rc=$?
[ $rc -le 1 ] || fail "resuming from the checkpoint failed ($rc): $(cat "$work/kr.txt")"
# The same bytes but for where the shrunk run went (--out is now the absolute DIR).
sed "s#$work/i/ex/#ex/#g" "$work/i/ex/explore.json" > "$work/i/explore.json"
cmp "$work/u/ex/explore.json" "$work/i/explore.json" || fail "interrupted, killed and resumed differs from one run: $(diff "$work/u/ex/explore.json" "$work/i/explore.json" | head)"
mkdir -p "$work/none"
"$bin" explore --resume "$work/none" > "$work/none.txt" 2>&1
[ $? -eq 2 ] || fail "--resume of a directory without explore.json should exit 2"
grep -q "no explore.json to resume from" "$work/none.txt" || fail "no message: $(cat "$work/none.txt")"

# Issue 13: a profile derived from the algorithm: printed, or written to DIR/profile.json and
# explored (its replay lines name that file).
"$bin" explore --algorithm redisson-lock --print-profile > "$work/p.json" || fail "--print-profile failed"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['algorithm']['name']=='redisson-lock'; assert d['faults']['random']['kinds']" "$work/p.json" || fail "the printed profile is not a scenario: $(head -5 "$work/p.json")"
(cd "$work" && "$bin" explore --algorithm set-nx-px --seeds 3 -j 1 --out d --no-shrink > d.txt 2>&1)
rc=$?
[ $rc -le 1 ] || fail "explore --algorithm failed ($rc): $(cat "$work/d.txt")"
[ -e "$work/d/profile.json" ] && [ -e "$work/d/explore.json" ] || fail "explore --algorithm wrote no profile.json/explore.json"
"$bin" explore --algorithm nope --seeds 3 > "$work/n.txt" 2>&1
[ $? -eq 2 ] || fail "an unknown --algorithm should exit 2"
grep -q 'no algorithm named "nope"' "$work/n.txt" || fail "no message for an unknown algorithm: $(cat "$work/n.txt")"

# --shrink-property: seed 207 of redlock-spec's profile violates mutual_exclusion first and
# linearizability too; the shrinker takes the property asked for.
(cd "$work" && "$bin" explore --algorithm redlock-spec --first-seed 207 --seeds 1 -j 1 --shrink-runs 10 \
   --shrink-property linearizability --out sp > sp.txt 2>&1)
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['shrunk']['property']=='linearizability', d['shrunk']" \
  "$work/sp/explore.json" || fail "--shrink-property linearizability shrank another property: $(cat "$work/sp.txt")"
(cd "$work" && "$bin" explore --algorithm redlock-spec --first-seed 207 --seeds 1 -j 1 --shrink-property fencing --out sf > sf.txt 2>&1)
grep -q 'no failing seed violated fencing; nothing shrunk' "$work/sf.txt" || fail "no message for a property no seed violated: $(cat "$work/sf.txt")"
"$bin" explore --algorithm redlock-spec --seeds 1 --shrink-property safety > "$work/sb.txt" 2>&1
[ $? -eq 2 ] || fail "an unknown --shrink-property should exit 2: $(cat "$work/sb.txt")"

# A directory never mixes two explorations (issue 14): exploring again into the same --out removes
# the earlier one's shrunk.json and shrunk/ run (they named another algorithm).
(cd "$work" && "$bin" explore --algorithm setnx-naive --seeds 20 -j 2 --out mx > mx1.txt 2>&1)
[ -e "$work/mx/shrunk.json" ] || fail "the first exploration shrank nothing: $(tail -3 "$work/mx1.txt")"
(cd "$work" && "$bin" explore --algorithm set-nx-px --seeds 2 -j 2 --no-shrink --out mx > mx2.txt 2>&1)
[ -e "$work/mx/shrunk.json" ] && fail "the second exploration kept the first one's shrunk.json"
[ -e "$work/mx/shrunk" ] && fail "the second exploration kept the first one's shrunk/"
grep -q '"name": "set-nx-px"' "$work/mx/profile.json" || fail "profile.json is not the second exploration's"

# explore.json cannot be written (a full disk; here a file-size limit): the summary of the seeds
# is printed all the same, and the error says it was not saved (exit 2).
(cd "$work" && ulimit -f 1 && exec "$bin" explore heavy.json --seeds 20 -j 2 --no-shrink --out fz > fz.txt 2> fz.err)
[ $? -eq 2 ] || fail "explore at the file-size limit: expected exit 2: $(cat "$work/fz.txt" "$work/fz.err")"
grep -q '^seeds run: 20 ' "$work/fz.txt" || fail "explore at the file-size limit: the summary was not printed: $(cat "$work/fz.txt")"
grep -q 'explore.json.tmp: write failed: File too large (the summary above was not saved)' "$work/fz.err" || fail "no message: $(cat "$work/fz.err")"
ls "$work/fz" | grep -q '\.tmp$' && fail "explore at the file-size limit left a temporary file"

# --resume goes on with the options the exploration started with: started with --no-shrink and
# --list 3, resumed with neither, it shrinks nothing and ends as the uninterrupted run does; a
# resumption that gives an option shaping explore.json another value is refused.
(cd "$work/u" && "$bin" explore ../heavy.json --seeds 200 -j 2 --no-shrink --list 3 --out ns > ../ns-u.txt 2>&1)
interrupted_after 0.4 "$work/i" "$work/ns-i.txt" "$work/ns-i.err" explore ../heavy.json --seeds 200 -j 1 --no-shrink --list 3 --out ns
[ $? -eq 130 ] || fail "--no-shrink: expected exit 130 after SIGINT: $(cat "$work/ns-i.txt" "$work/ns-i.err")"
grep -q '"no_shrink": true' "$work/i/ns/explore.json" || fail "the interrupted summary does not record --no-shrink"
(cd "$work/i" && "$bin" explore --resume ns --shrink-runs 5 > ../ns-r0.txt 2>&1)
[ $? -eq 2 ] || fail "--resume with a --shrink-runs of its own should be refused: $(cat "$work/ns-r0.txt")"
grep -q 'started with shrink_runs 300, not 5 as --shrink-runs says' "$work/ns-r0.txt" || fail "no message: $(cat "$work/ns-r0.txt")"
# A recorded option of the wrong type (an explore.json edited by hand) is named by its path.
cp "$work/i/ns/explore.json" "$work/ns-saved.json"
sed -i 's/"list": 3/"list": "3"/' "$work/i/ns/explore.json"
(cd "$work/i" && "$bin" explore --resume ns > ../ns-r1.txt 2>&1)
[ $? -eq 2 ] && grep -q 'ns/explore.json: /options/list: expected a number of seeds' "$work/ns-r1.txt" || fail "a bad recorded option: $(cat "$work/ns-r1.txt")"
cp "$work/ns-saved.json" "$work/i/ns/explore.json"
(cd "$work/i" && "$bin" explore --resume ns -j 2 > ../ns-r.txt 2>&1)
[ $? -le 1 ] || fail "resuming with the recorded options failed: $(cat "$work/ns-r.txt")"
[ -e "$work/i/ns/shrunk.json" ] && fail "resumed without --no-shrink, an exploration started with it shrank"
cmp "$work/u/ns/explore.json" "$work/i/ns/explore.json" || fail "resumed with the recorded options differs: $(diff "$work/u/ns/explore.json" "$work/i/ns/explore.json" | head)"
[ "$(grep -c '^  seed [0-9]*:' "$work/ns-r.txt")" = "$(grep -c '^  seed [0-9]*:' "$work/ns-u.txt")" ] || fail "the resumed summary lists another number of seeds than --list 3: $(cat "$work/ns-r.txt")"

# `lockstep sweep` interrupted (issue 14): Ctrl-C stops its workers, the files hold the runs that
# finished (marked interrupted), no temporary file is left, exit 130.
interrupted_after 0.5 "$work" "$work/sw.txt" "$work/sw.err" sweep heavy.json --param /clients/count=2..8:2 --seeds 100 -j 1 --out sw
rc=$?
[ $rc -eq 130 ] || fail "sweep: expected exit 130 after SIGINT, got $rc: $(cat "$work/sw.txt" "$work/sw.err")"
grep -q "interrupted: [0-9]* of 400 runs finished" "$work/sw.txt" || fail "sweep: no count of finished runs: $(cat "$work/sw.txt")"
grep -q '"interrupted": true' "$work/sw/sweep.json" || fail "sweep.json is not marked interrupted"
[ -s "$work/sw/sweep.csv" ] && [ -s "$work/sw/sweep.svg" ] || fail "sweep: the CSV or SVG is missing"
ls "$work/sw" | grep -q '\.tmp$' && fail "sweep: a temporary file was left"
grep -q "resume: lockstep sweep --resume sw" "$work/sw.txt" || fail "sweep: no resume command: $(cat "$work/sw.txt")"
# --resume runs only the runs left (sweep.json lists the seeds that ran at each value, finished
# in whatever order) and, interrupted again, is resumed again; from any directory, the files are
# byte for byte those of the uninterrupted sweep.
interrupted_after 1 "$work" "$work/sw-r1.txt" "$work/sw-r1.err" sweep --resume sw -j 2
rc=$?
[ $rc -eq 130 ] || [ $rc -eq 0 ] || fail "sweep --resume, interrupted: exit $rc: $(cat "$work/sw-r1.txt" "$work/sw-r1.err")"
grep -q "resuming: [0-9]* of 400 runs left" "$work/sw-r1.txt" || fail "sweep --resume: no count of the runs left: $(cat "$work/sw-r1.txt")"
if [ $rc -eq 130 ]; then
  (cd "$work/u" && "$bin" sweep --resume ../sw -j 2 > ../sw-r2.txt 2>&1) || fail "sweep --resume again: $(cat "$work/sw-r2.txt")"
fi
(cd "$work" && "$bin" sweep heavy.json --param /clients/count=2..8:2 --seeds 100 -j 2 --out swu > swu.txt 2>&1) || fail "uninterrupted sweep: $(cat "$work/swu.txt")"
for f in sweep.json sweep.csv sweep.svg; do
  cmp "$work/swu/$f" "$work/sw/$f" || fail "the resumed sweep's $f differs: $(diff "$work/swu/$f" "$work/sw/$f" | head)"
done
"$bin" sweep --resume "$work/sw" > "$work/sw-r3.txt" 2>&1
[ $? -eq 2 ] && grep -q "that sweep ran to the end; there is nothing to resume" "$work/sw-r3.txt" || fail "resuming a finished sweep: $(cat "$work/sw-r3.txt")"
"$bin" sweep --resume "$work/sw" --seeds 3 > "$work/sw-r4.txt" 2>&1
[ $? -eq 2 ] && grep -q -- "--resume takes the scenario, the values, the seeds and the directory" "$work/sw-r4.txt" || fail "--resume with --seeds: $(cat "$work/sw-r4.txt")"
# Sweeping again into the same directory: only this sweep's value scenarios are there.
(cd "$work" && "$bin" sweep heavy.json --param /clients/count=1..1 --seeds 1 -j 1 --out sw > sw2.txt 2>&1) || fail "sweep again: $(cat "$work/sw2.txt")"
[ "$(ls "$work/sw/scenarios")" = "value_1.json" ] || fail "sweep again: the earlier sweep's scenarios stayed: $(ls "$work/sw/scenarios")"
grep -q '"interrupted"' "$work/sw/sweep.json" && fail "sweep again: sweep.json still says interrupted"
echo "ok"
