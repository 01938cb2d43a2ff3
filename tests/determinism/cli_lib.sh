# The common start of the CLI tests (sourced): the binary and source directory from the
# arguments, a work directory removed on exit, and fail().
# Usage, in a test: . "$(dirname "$0")/cli_lib.sh"   (with LOCKSTEP_BINARY SOURCE_DIR as $1 $2)
set -u
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# interrupted_after SECONDS DIR OUT ERR ARGS...: runs `lockstep ARGS...` in DIR (stdout to OUT,
# stderr to ERR), sends it SIGINT after SECONDS, and returns its exit status.
interrupted_after() {
  local delay=$1 dir=$2 out=$3 err=$4
  shift 4
  (cd "$dir" && exec "$bin" "$@" > "$out" 2> "$err") &
  local pid=$!
  sleep "$delay"
  kill -INT $pid
  wait $pid
}
