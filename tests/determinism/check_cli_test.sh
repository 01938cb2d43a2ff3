#!/usr/bin/env bash
# Issue 14, `lockstep check` on large files: the reader goes through the file in pieces, so the
# memory a check needs follows the records it keeps, not the file's size. A 200 MB history whose
# lines carry a large unknown field is checked under a 100 MB address-space limit; 200 MB of
# garbage is refused at its first line under the same limit; a line over 1 MiB is named by its
# line number wherever it falls.
# Usage: check_cli_test.sh LOCKSTEP_BINARY SOURCE_DIR
. "$(dirname "$0")/cli_lib.sh"

python3 - "$work/big.jsonl" "$work/garbage.jsonl" "$work/long.jsonl" <<'PY'
import sys
pad = "x" * 2000
with open(sys.argv[1], "w") as f:
    f.write('{"lockstep_history": 1, "lock_kind": "reentrant"}\n')
    for i in range(100000):
        f.write('{"t": %d, "type": "node", "node": "n0", "event": "x", "pad": "%s"}\n' % (i, pad))
    f.write('{"t": 100000, "type": "end"}\n')
with open(sys.argv[2], "wb") as f:
    block = bytes(range(256)) * 4096
    for _ in range(200):
        f.write(block)
with open(sys.argv[3], "w") as f:
    f.write('{"lockstep_history": 1, "lock_kind": "reentrant"}\n')
    for i in range(3000):
        f.write('{"t": %d, "type": "node", "node": "n0", "event": "x", "pad": "%s"}\n' % (i, pad))
    f.write('{"t": 3000, "type": "node", "node": "n0", "event": "x", "pad": "%s"}\n' % ("y" * (2 << 20)))
    f.write('{"t": 3001, "type": "end"}\n')
PY
[ "$(stat -c %s "$work/big.jsonl")" -gt 200000000 ] || fail "the big history is smaller than intended"

# A history cut inside its last line (a run killed while writing it) is checked as cut short: the
# line is named and left out, the verdicts that need the rest are unknown (exit 3), on one thread
# or two. The same bad line with a newline after it stays an error.
head -c 1000000 "$work/big.jsonl" > "$work/cut.jsonl"
for j in 1 2; do
  "$bin" check "$work/cut.jsonl" -j $j > "$work/cut.out" 2> "$work/cut.err"
  rc=$?
  [ $rc -eq 3 ] || fail "a cut history (-j $j): expected exit 3, got $rc: $(cat "$work/cut.err" "$work/cut.out")"
  grep -q "cut.jsonl:$(( $(wc -l < "$work/cut.jsonl") + 1 )): the file ends inside this line" "$work/cut.err" ||
    fail "the cut line is not named (-j $j): $(cat "$work/cut.err")"
done
echo >> "$work/cut.jsonl"
"$bin" check "$work/cut.jsonl" > "$work/cut.out" 2>&1
[ $? -eq 2 ] || fail "a bad last line followed by a newline should stay an error: $(cat "$work/cut.out")"

# AddressSanitizer reserves terabytes of address space, so the limits apply to plain builds only
# (run_cli_test.sh says the same); the verdicts and messages are checked in every build.
limit() { if [ "${LOCKSTEP_SANITIZED:-0}" = 1 ]; then "$@"; else (ulimit -v 100000; "$@"); fi; }

limit "$bin" check "$work/big.jsonl" > "$work/1.out" 2>&1
rc=$?
[ $rc -eq 0 ] || fail "a 200 MB history under a 100 MB limit: exit $rc: $(tail -3 "$work/1.out")"
grep -q "mutual_exclusion" "$work/1.out" || fail "no verdicts printed: $(head -5 "$work/1.out")"

limit "$bin" check "$work/garbage.jsonl" > "$work/2.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "200 MB of garbage: expected exit 2, got $rc: $(head -c 300 "$work/2.out")"
grep -q "garbage.jsonl:1: " "$work/2.out" || fail "garbage: the first line is not named: $(head -c 300 "$work/2.out")"
grep -q "out of memory" "$work/2.out" && fail "garbage: ran out of memory instead of refusing line 1"

"$bin" check "$work/long.jsonl" > "$work/3.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "a 2 MiB line: expected exit 2, got $rc"
grep -q "long.jsonl:3002: line longer than 1 MiB" "$work/3.out" || fail "the long line is not named: $(head -c 300 "$work/3.out")"
# `--json /dev/null` writes into the device; it used to rename a file over it (as root, /dev/null
# became a regular file).
"$bin" check "$work/long.jsonl" --json /dev/null > /dev/null 2>&1
head -3 "$work/big.jsonl" > "$work/small.jsonl"; echo '{"t": 3, "type": "end"}' >> "$work/small.jsonl"
"$bin" check "$work/small.jsonl" --json /dev/null > "$work/4.out" 2>&1 || fail "check --json /dev/null: $(cat "$work/4.out")"
[ -c /dev/null ] || fail "/dev/null is no longer a character device"
# A history on standard input ("-"), read in pieces like a file: a converter can pipe into check.
"$bin" check - < "$work/small.jsonl" > "$work/5.out" 2>&1 || fail "check - failed: $(cat "$work/5.out")"
grep -q "mutual_exclusion" "$work/5.out" || fail "check -: no verdicts: $(cat "$work/5.out")"
printf 'not json\n' | "$bin" check - > "$work/6.out" 2>&1
[ $? -eq 2 ] || fail "check - on garbage: expected exit 2"
grep -q "<stdin>:1: " "$work/6.out" || fail "check - on garbage: the line is not named: $(cat "$work/6.out")"
# A named pipe, as process substitution gives (check <(zstdcat h.jsonl.zst) names /dev/fd/63):
# read like standard input; a character device is still refused.
"$bin" check <(cat "$work/small.jsonl") > "$work/5p.out" 2>&1 || fail "check <(...) failed: $(cat "$work/5p.out")"
cmp -s "$work/5.out" "$work/5p.out" || fail "check <(...) differs from check -: $(cat "$work/5p.out")"
"$bin" check /dev/zero > "$work/5z.out" 2>&1
[ $? -eq 2 ] && grep -q "/dev/zero: the history: not a regular file or a pipe" "$work/5z.out" || fail "check /dev/zero: $(cat "$work/5z.out")"
# Progress on a terminal only: the 200 MB file's megabytes read, then the properties done, on
# stderr; none when stderr is not a terminal (1.out above). `script` (util-linux) gives a terminal.
grep -q "MB read" "$work/1.out" && fail "a progress line without a terminal: $(head -c 300 "$work/1.out")"
if command -v script > /dev/null; then
  script -qec "'$bin' check '$work/big.jsonl' > /dev/null" /dev/null > "$work/7.out" 2>&1 || fail "check on a terminal failed: $(tail -c 300 "$work/7.out")"
  grep -aq "MB read [0-9]*/19[0-9], reading the history" "$work/7.out" || fail "no reading progress on a terminal: $(tail -c 300 "$work/7.out")"
  grep -aq "properties done 7/7, checking the history" "$work/7.out" || fail "no checking progress on a terminal: $(tail -c 300 "$work/7.out")"
fi
echo "ok"
