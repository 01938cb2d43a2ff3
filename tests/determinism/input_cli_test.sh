#!/usr/bin/env bash
# Issue 14, names and output paths, end to end: names have a limit and no control characters;
# whatever the CLI prints from input (file paths, names in a history, error messages) shows a
# control character as \xNN, never the raw byte; `report -o` never overwrites its own input; a
# result.json cannot make `report` read a file outside its directory.
# Usage: input_cli_test.sh LOCKSTEP_BINARY SOURCE_DIR
. "$(dirname "$0")/cli_lib.sh"
esc=$(printf '\033')
# True when the file holds an ESC, NUL or other control byte (newlines and tabs aside).
has_control() { LC_ALL=C grep -q '[[:cntrl:]]' <(tr -d '\n\t' < "$1"); }

base=$src/scenarios/kernel/pause-client.json
with_name() {  # with_name NAME_AS_JSON_TEXT OUT: the base scenario renamed
  sed "s/\"name\": \"kernel-pause-client\"/\"name\": $1/" "$base" > "$2"
}

# 1. A name with a control character is refused when the scenario is parsed (exit 2), and the
# message shows it escaped: a scenario named "\u001b[2J ok" cannot clear the screen.
with_name '"\\u001b[2J ok"' "$work/esc.json"
"$bin" run "$work/esc.json" --out "$work/o1" > "$work/1.out" 2> "$work/1.err"
[ $? -eq 2 ] || fail "a control character in the name: expected exit 2: $(cat "$work/1.out" "$work/1.err")"
grep -qF 'esc.json: /name: expected a scenario name without control characters, found "\x1b[2J ok" (control character U+001B at byte 0)' "$work/1.err" \
  || fail "no message for the control character: $(cat "$work/1.err")"
has_control "$work/1.out" && fail "stdout holds a control byte"
has_control "$work/1.err" && fail "stderr holds a control byte: $(od -c "$work/1.err" | head)"
[ -e "$work/o1" ] && fail "an output directory was made for a refused scenario"

# 2. A name over the limit (it used to be 1 MiB, when reading the history back failed): exit 2
# naming the pointer, not "line longer than 1 MiB".
{ printf '{"name": "'; head -c 1100000 /dev/zero | tr '\0' x; printf '", '; tail -c +2 "$base" | grep -v '"name": "kernel-pause-client"'; } > "$work/long.json"
"$bin" run "$work/long.json" --out "$work/o2" > "$work/2.txt" 2>&1
[ $? -eq 2 ] || fail "a 1.1 MB name: expected exit 2: $(head -c 300 "$work/2.txt")"
grep -q "long.json: /name: expected a scenario name of at most 256 bytes, found one of 1100000 bytes" "$work/2.txt" \
  || fail "no message for a long name: $(head -c 300 "$work/2.txt")"
grep -q "1 MiB" "$work/2.txt" && fail "the long name reached the history"

# 3. A NUL in a lock name cut stdout short while the exit code said 1: now exit 2.
sed 's/"lock": "L", "lease_ms": 30000, "at_ms": 1000/"lock": "L\\u0000x", "lease_ms": 30000, "at_ms": 1000/' "$base" > "$work/nul.json"
"$bin" run "$work/nul.json" --out "$work/o3" > "$work/3.txt" 2>&1
[ $? -eq 2 ] || fail "a NUL in a lock name: expected exit 2: $(cat "$work/3.txt")"
grep -qF 'nul.json: /workload/script/0/steps/0/lock: expected a lock name without control characters, found "L\x00x"' "$work/3.txt" \
  || fail "no message for the NUL: $(cat "$work/3.txt")"

# 4. A file path with an escape sequence: run, explore and sweep print it as \x1b.
weird="$work/${esc}[2J ok.json"
cp "$base" "$weird"
"$bin" run "$weird" --out "$work/o4" > "$work/4.out" 2> "$work/4.err"
[ $? -eq 0 ] || fail "run of a scenario at an odd path: $(cat "$work/4.out" "$work/4.err")"
grep -qF '\x1b[2J ok.json' "$work/4.out" || fail "the path is not shown escaped: $(cat -v "$work/4.out")"
grep -qF "replay: lockstep run '$work/\\x1b[2J ok.json' --seed 1" "$work/4.out" || fail "the replay line is not escaped and quoted: $(cat -v "$work/4.out")"
has_control "$work/4.out" && fail "run: stdout holds a control byte: $(cat -v "$work/4.out")"
has_control "$work/4.err" && fail "run: stderr holds a control byte"
"$bin" explore "$weird" --seeds 2 -j 1 --no-shrink --out "$work/x4" > "$work/4x.out" 2> "$work/4x.err"
grep -qF '\x1b[2J ok.json' "$work/4x.out" || fail "explore: the path is not shown escaped: $(cat -v "$work/4x.out")"
has_control "$work/4x.out" && fail "explore: stdout holds a control byte: $(cat -v "$work/4x.out")"
"$bin" sweep "$weird" --param /faults/schedule/0/duration_ms=1000..2000:1000 --seeds 1 -j 1 --out "$work/s4" > "$work/4s.out" 2> "$work/4s.err"
grep -qF '\x1b[2J ok.json' "$work/4s.out" || fail "sweep: the path is not shown escaped: $(cat -v "$work/4s.out" "$work/4s.err")"
has_control "$work/4s.out" && fail "sweep: stdout holds a control byte: $(cat -v "$work/4s.out")"
"$bin" run "$work/${esc}]0;title$(printf '\007')missing.json" > "$work/4m.txt" 2>&1
[ $? -eq 2 ] || fail "a missing file: expected exit 2"
grep -qF '\x1b]0;title\x07missing.json: the scenario file: no such file' "$work/4m.txt" || fail "missing file not escaped: $(cat -v "$work/4m.txt")"
"$bin" run "$base" "${esc}[31mextra" > "$work/4u.txt" 2>&1
[ $? -eq 2 ] || fail "a usage error: expected exit 2"
grep -qF 'The following argument was not expected: \x1b[31mextra' "$work/4u.txt" || fail "usage error not escaped: $(cat -v "$work/4u.txt")"
has_control "$work/4u.txt" && fail "usage error holds a control byte"

# 5. check: lock names come from the history and are not checked there; the explanation shows
# them escaped, and a newline in one cannot start a line of its own ("all ok").
sed 's/"lock": "L"/"lock": "\\u001b[2J\\nall ok"/g; s/"args": \["L"/"args": ["\\u001b[2J\\nall ok"/g' "$work/o4/history.jsonl" > "$work/h5.jsonl"
"$bin" check "$work/h5.jsonl" > "$work/5.out" 2> "$work/5.err"
[ $? -eq 1 ] || fail "check: expected the violation (exit 1): $(cat -v "$work/5.out" "$work/5.err")"
grep -qF '\x1b[2J\x0aall ok' "$work/5.out" || fail "check: the lock name is not escaped: $(cat -v "$work/5.out")"
grep -q '^all ok' "$work/5.out" && fail "check: a lock name started a line of its own"
has_control "$work/5.out" && fail "check: stdout holds a control byte: $(cat -v "$work/5.out")"

# 6. list: a file name in the library with an escape sequence, and its error, are escaped.
mkdir -p "$work/lib"
cp "$work/esc.json" "$work/lib/${esc}[2J.json"
"$bin" list scenarios --scenarios "$work/lib" > "$work/6.out" 2>&1
grep -qF "$work/lib/\\x1b[2J.json" "$work/6.out" || fail "list: the file name is not escaped: $(cat -v "$work/6.out")"
has_control "$work/6.out" && fail "list: output holds a control byte: $(cat -v "$work/6.out")"

# 7. report -o naming its own input: refused (exit 2) naming both, the input untouched.
cp "$work/o4/result.json" "$work/result.before"
"$bin" report "$work/o4/result.json" -o "$work/o4/result.json" > "$work/7.txt" 2>&1
[ $? -eq 2 ] || fail "report -o RESULT: expected exit 2: $(cat "$work/7.txt")"
grep -qF -- "-o $work/o4/result.json: is the result $work/o4/result.json, the report's own input" "$work/7.txt" \
  || fail "report -o RESULT: no message naming both: $(cat "$work/7.txt")"
cmp -s "$work/o4/result.json" "$work/result.before" || fail "report -o RESULT overwrote the result"
cp "$work/o4/history.jsonl" "$work/history.before"
"$bin" report "$work/o4/result.json" -o "$work/o4/../o4/history.jsonl" > "$work/7h.txt" 2>&1
[ $? -eq 2 ] || fail "report -o HISTORY: expected exit 2: $(cat "$work/7h.txt")"
grep -qF "is the history $work/o4/history.jsonl, the report's own input" "$work/7h.txt" || fail "report -o HISTORY: $(cat "$work/7h.txt")"
cmp -s "$work/o4/history.jsonl" "$work/history.before" || fail "report -o HISTORY overwrote the history"
"$bin" report "$work/o4/result.json" -o "$work/7.html" > /dev/null 2>&1 || fail "report to another file failed"
# check --json naming the history it checks: refused (exit 2), the history untouched.
"$bin" check "$work/o4/history.jsonl" --json "$work/o4/../o4/history.jsonl" > "$work/7j.txt" 2>&1
[ $? -eq 2 ] || fail "check --json HISTORY: expected exit 2: $(cat "$work/7j.txt")"
grep -qF "is the history $work/o4/history.jsonl, the check's own input" "$work/7j.txt" || fail "check --json HISTORY: $(cat "$work/7j.txt")"
cmp -s "$work/o4/history.jsonl" "$work/history.before" || fail "check --json HISTORY overwrote the history"
# explore --junit naming the scenario: refused before any seed runs, the scenario untouched.
cp "$weird" "$work/7s.json"
"$bin" explore "$work/7s.json" --seeds 1 --junit "$work/./7s.json" --out "$work/7e" > "$work/7e.txt" 2>&1
[ $? -eq 2 ] && grep -qF "is the scenario $work/7s.json, the exploration's own input" "$work/7e.txt" || fail "explore --junit SCENARIO: $(cat "$work/7e.txt")"
cmp -s "$weird" "$work/7s.json" || fail "explore --junit SCENARIO overwrote the scenario"
# A scenario that sits where the command writes its outputs (run DIR/result.json --out DIR): refused.
mkdir -p "$work/7r" "$work/7w/scenarios"
cp "$weird" "$work/7r/result.json"
"$bin" run "$work/7r/result.json" --out "$work/7r" > "$work/7r.txt" 2>&1
[ $? -eq 2 ] && grep -qF "run writes $work/7r/result.json, which is $work/7r/result.json, the file it reads" "$work/7r.txt" \
  || fail "run into the scenario's own result.json: $(cat "$work/7r.txt")"
cmp -s "$weird" "$work/7r/result.json" || fail "run --out replaced the scenario"
cp "$weird" "$work/7w/scenarios/value_1.json"
"$bin" sweep "$work/7w/scenarios/value_1.json" --param /clients/count=1..2 --seeds 1 --out "$work/7w" > "$work/7w.txt" 2>&1
[ $? -eq 2 ] && grep -qF "sweep replaces what is in $work/7w/scenarios" "$work/7w.txt" || fail "sweep over its scenario: $(cat "$work/7w.txt")"
cmp -s "$weird" "$work/7w/scenarios/value_1.json" || fail "sweep --out replaced the scenario"

# 8. A result naming a history outside its directory: refused (exit 2) unless --history says so.
mkdir -p "$work/r8"
sed 's|"history": "history.jsonl"|"history": "../../../../etc/passwd"|' "$work/o4/result.json" > "$work/r8/result.json"
grep -q '"history": "../../../../etc/passwd"' "$work/r8/result.json" || fail "test setup: the history field was not replaced"
"$bin" report "$work/r8/result.json" -o "$work/8.html" > "$work/8.txt" 2>&1
[ $? -eq 2 ] || fail "a history outside the result's directory: expected exit 2: $(cat "$work/8.txt")"
grep -qF "$work/r8/result.json: /history: \"../../../../etc/passwd\" leaves the result's directory" "$work/8.txt" \
  || fail "no message for ../../../../etc/passwd: $(cat "$work/8.txt")"
grep -q "give the file with --history PATH" "$work/8.txt" || fail "the message does not say what to do: $(cat "$work/8.txt")"
[ -e "$work/8.html" ] && fail "a report was written from a history outside the result's directory"
"$bin" report "$work/r8/result.json" --history "$work/o4/history.jsonl" -o "$work/8.html" > "$work/8b.txt" 2>&1
[ $? -eq 0 ] || fail "report --history PATH: expected exit 0: $(cat "$work/8b.txt")"

# 9. A key twice in one object of a result.json (or an explore.json) is ambiguous: refused (exit 2)
# with its JSON path, as a scenario's is.
mkdir -p "$work/r9"
cp "$work/o4/history.jsonl" "$work/r9/"
python3 - "$work/o4/result.json" "$work/r9/result.json" <<'PY'
import sys
text = open(sys.argv[1]).read()
open(sys.argv[2], "w").write(text.replace('"seed":', '"seed": 99, "seed":', 1))
PY
"$bin" report "$work/r9/result.json" -o "$work/9.html" > "$work/9.txt" 2>&1
[ $? -eq 2 ] || fail "report of a result.json with a duplicate key: expected exit 2: $(cat "$work/9.txt")"
grep -qE "r9/result.json: /([a-z_]+/)*seed: duplicate key" "$work/9.txt" || fail "no message naming the key: $(cat "$work/9.txt")"
(cd "$work" && "$bin" explore "$weird" --seeds 2 -j 1 --no-shrink --out e9 > /dev/null 2>&1)
sed -i '0,/"seeds_run":/s//"seeds_run": 0, "seeds_run":/' "$work/e9/explore.json"
"$bin" explore --merge "$work/e9/explore.json" --out "$work/e9m" > "$work/9m.txt" 2>&1
[ $? -eq 2 ] || fail "explore --merge of an explore.json with a duplicate key: expected exit 2: $(cat "$work/9m.txt")"
grep -qF "$work/e9/explore.json: /seeds_run: duplicate key" "$work/9m.txt" || fail "no message naming the key: $(cat "$work/9m.txt")"

# 10. An empty file or directory name (a variable that was never set) is a usage error, not "no
# output": `check --json ""` wrote nothing and said nothing, `report -o ""` aborted (exit 134).
empty_refused() {  # OPTION ARGS...: lockstep ARGS must exit 2 naming OPTION
  local option=$1
  shift
  "$bin" "$@" > "$work/10.txt" 2>&1
  local rc=$?
  [ $rc -eq 2 ] || fail "$* : expected exit 2, got $rc: $(head -3 "$work/10.txt")"
  grep -q -- "^$option: expected a .* name, found an empty string" "$work/10.txt" || fail "$* : no message: $(head -3 "$work/10.txt")"
}
empty_refused --json check "$work/o4/history.jsonl" --json ""
empty_refused --out report "$work/o4/result.json" -o ""
empty_refused --history report "$work/o4/result.json" -o "$work/10.html" --history ""
empty_refused --junit explore "$weird" --seeds 1 --junit ""
empty_refused --trace serve --port 0 --trace ""
empty_refused --lua run "$weird" --lua ""
empty_refused --scenarios list scenarios --scenarios ""

# A merge that lacks a shard has seeds nobody checked: it says which, and without a failure in the
# rest exits 3 (undecided), not 0 — a CI merge job whose shard's upload was lost must not pass.
(cd "$work" && "$bin" explore "$src/scenarios/kernel/delay.json" --seeds 12 --shard 1/3 --no-shrink --out m1 > /dev/null 2>&1 &&
  "$bin" explore "$src/scenarios/kernel/delay.json" --seeds 12 --shard 3/3 --no-shrink --out m3 > /dev/null 2>&1) ||
  fail "the shards of kernel/delay.json did not pass"
"$bin" explore --merge "$work/m1/explore.json" "$work/m3/explore.json" --out "$work/m13" > "$work/m13.txt" 2>&1
rc=$?
[ $rc -eq 3 ] || fail "explore --merge without shard 2/3: expected exit 3, got $rc: $(cat "$work/m13.txt")"
grep -qF "seeds 5..8 were not explored (no summary given holds them)" "$work/m13.txt" || fail "no message naming the missing seeds: $(cat "$work/m13.txt")"
(cd "$work" && "$bin" explore "$src/scenarios/kernel/delay.json" --seeds 12 --shard 2/3 --no-shrink --out m2 > /dev/null 2>&1) ||
  fail "shard 2/3 of kernel/delay.json did not pass"
"$bin" explore --merge "$work/m1/explore.json" "$work/m2/explore.json" "$work/m3/explore.json" --out "$work/m123" > "$work/m123.txt" 2>&1 ||
  fail "explore --merge of every shard: $(cat "$work/m123.txt")"
grep -qF "(complete)" "$work/m123.txt" || fail "explore --merge of every shard: not complete: $(cat "$work/m123.txt")"

# A merge into a directory that holds a run's outputs is refused, as an exploration is.
"$bin" explore --merge "$work/e9/explore.json" --out "$work/o4" > "$work/9o.txt" 2>&1
[ $? -eq 2 ] && grep -qF "holds a run's output" "$work/9o.txt" || fail "explore --merge into a run's directory: $(cat "$work/9o.txt")"
[ -e "$work/o4/explore.json" ] && fail "explore --merge wrote explore.json beside a run's outputs"

# An output in a directory that does not exist is refused before the history is read.
"$bin" check "$work/o4/history.jsonl" --json "$work/none/x.json" > "$work/10n.txt" 2>&1
[ $? -eq 2 ] && grep -qF -- "--json: $work/none/x.json: the directory $work/none does not exist" "$work/10n.txt" || fail "check --json into a missing directory: $(cat "$work/10n.txt")"
grep -q "mutual_exclusion" "$work/10n.txt" && fail "check --json into a missing directory checked the history first"
"$bin" list scenarios --scenarios "$weird" > "$work/10d.txt" 2>&1
[ $? -eq 2 ] && grep -qF "is a file, not a directory" "$work/10d.txt" || fail "list --scenarios FILE: $(cat "$work/10d.txt")"

# A result.json whose properties or history are not what run writes: refused with the JSON path.
python3 - "$work/o4/result.json" "$work/r9" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
json.dump(dict(r, properties=[1, 2]), open(sys.argv[2] + "/p.json", "w"))
json.dump(dict(r, history={"a": 1}), open(sys.argv[2] + "/h.json", "w"))
PY
"$bin" report "$work/r9/p.json" -o "$work/10p.html" > "$work/10p.txt" 2>&1
[ $? -eq 2 ] && grep -qF "p.json: /properties/0: expected a property verdict" "$work/10p.txt" || fail "report of bad properties: $(cat "$work/10p.txt")"
"$bin" report "$work/r9/h.json" -o "$work/10h.html" > "$work/10h.txt" 2>&1
[ $? -eq 2 ] && grep -qF "h.json: /history: expected the history's file name, a string" "$work/10h.txt" || fail "report of a bad history field: $(cat "$work/10h.txt")"

# 11. One file for the other: a history given to report, a result.json given to check, each says
# what it is and what the command reads.
"$bin" report "$work/o4/history.jsonl" -o "$work/11.html" > "$work/11.txt" 2>&1
[ $? -eq 2 ] && grep -qF "history.jsonl: is a history (JSON Lines), not a result.json" "$work/11.txt" || fail "report of a history: $(cat "$work/11.txt")"
"$bin" check "$work/o4/result.json" > "$work/11c.txt" 2>&1
[ $? -eq 2 ] && grep -qF "result.json:1: header: not valid JSON: a history is JSON Lines" "$work/11c.txt" || fail "check of a result.json: $(cat "$work/11c.txt")"

# 12. bench: an --algorithm B6 has no target for, or one given while --only leaves B6 out, is
# refused before anything runs (it used to run nothing and exit 0).
"$bin" bench --only B6 --quick --algorithm nope > "$work/12a.out" 2> "$work/12a.err"
[ $? -eq 2 ] && grep -qF "B6 --quick has no target of algorithm 'nope' (it has: redisson-lock, redisson-redlock, setnx-naive)" "$work/12a.err" \
  || fail "bench --algorithm nope: $(cat "$work/12a.out" "$work/12a.err")"
[ -s "$work/12a.out" ] && fail "bench --algorithm nope printed a result: $(cat "$work/12a.out")"
"$bin" bench --only B1 --algorithm redisson-lock > "$work/12b.out" 2> "$work/12b.err"
[ $? -eq 2 ] && grep -qF -- "--algorithm chooses B6's targets, and --only leaves B6 out" "$work/12b.err" \
  || fail "bench --only B1 --algorithm: $(cat "$work/12b.out" "$work/12b.err")"
echo "ok"
