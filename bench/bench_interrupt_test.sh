#!/usr/bin/env bash
# Issue 14: Ctrl-C during `lockstep bench` leaves no scratch file behind. B3 writes a 0.5 GB
# history to the temporary directory and checks it in child processes; interrupted while that
# file exists, bench exits 130 and the directory is empty (the children are killed first, so none
# re-creates a file after the removal).
# Usage: bench_interrupt_test.sh LOCKSTEP_BINARY
set -u
bin=$1
tmp=$(mktemp -d)   # bench's temporary directory: must end empty
logs=$(mktemp -d)
trap 'rm -rf "$tmp" "$logs"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

TMPDIR=$tmp "$bin" bench --only B3 > "$logs/out" 2> "$logs/err" &
pid=$!
for _ in $(seq 600); do
  [ -n "$(ls -A "$tmp")" ] && break
  sleep 0.2
done
[ -n "$(ls -A "$tmp")" ] || { kill -KILL $pid; fail "no scratch file appeared in 120 s"; }
sleep 0.5
kill -INT $pid
wait $pid
rc=$?
sleep 0.5  # a stray child would be writing now
[ $rc -eq 130 ] || fail "expected exit 130, got $rc: $(cat "$logs/err")"
grep -q "interrupted; temporary files removed" "$logs/err" || fail "no message: $(cat "$logs/err")"
left=$(ls -A "$tmp")
[ -z "$left" ] || fail "left behind: $left"
echo "ok"
