#!/bin/bash
# `lockstep run --live`, interrupted: Ctrl-C (SIGINT) and SIGTERM end it with 128 + the signal,
# its redis-servers gone, its temporary directories removed and no partial output left; even
# `kill -9 lockstep` leaves no redis-server running (PR_SET_PDEATHSIG).
# Usage: live_signal_test.sh LOCKSTEP_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export TMPDIR=$tmp
scenario=$src/scenarios/seed/001-a-then-b-and-c.json
fail() { echo "FAIL: $*"; exit 1; }
# True while process $1 runs (a zombie waiting to be reaped has stopped running).
running() {
  local st
  st=$(ps -o stat= -p "$1" 2> /dev/null) || return 1
  [[ $st != Z* ]]
}
# Waits up to 3 s for process $1 to stop running.
gone() {
  for _ in $(seq 60); do
    running "$1" || return 0
    sleep 0.05
  done
  return 1
}

# Starts a live run and waits until its servers are up: sets pid and servers.
start() {
  "$bin" run "$scenario" --live --out "$tmp/out" > "$tmp/log" 2>&1 &
  pid=$!
  servers=
  for _ in $(seq 100); do
    servers=$(pgrep -P "$pid" redis-server | tr '\n' ' ')
    [ -n "$servers" ] && break
    sleep 0.05
  done
  [ -n "$servers" ] || fail "no redis-server started by lockstep ($(cat "$tmp/log"))"
  sleep 0.5
}

for sig in INT TERM; do
  start
  kill -"$sig" "$pid"
  wait "$pid"
  rc=$?
  want=$((128 + $(kill -l "$sig")))
  [ "$rc" = "$want" ] || fail "SIG$sig: exit $rc, expected $want ($(cat "$tmp/log"))"
  for s in $servers; do
    running "$s" && fail "SIG$sig: redis-server $s still running"
  done
  left=$(ls "$tmp" | grep lockstep-live)
  [ -z "$left" ] || fail "SIG$sig: temporary directory left: $left"
  [ -e "$tmp/out/history.jsonl" ] && fail "SIG$sig: a partial history.jsonl was left"
  ls "$tmp/out" 2> /dev/null | grep -q tmp && fail "SIG$sig: a temporary output was left"
  grep -q "interrupted" "$tmp/log" || fail "SIG$sig: no message ($(cat "$tmp/log"))"
done

start
kill -KILL "$pid"
wait "$pid" 2> /dev/null
for s in $servers; do
  gone "$s" || fail "SIGKILL: redis-server $s outlived lockstep"
done
echo "ok: SIGINT and SIGTERM exit 130/143 with nothing left behind; SIGKILL leaves no server"
