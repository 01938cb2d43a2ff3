# The common start of the CLI tests (sourced): the binary and source directory from the
# arguments, a work directory removed on exit, and fail().
# Usage, in a test: . "$(dirname "$0")/cli_lib.sh"   (with LOCKSTEP_BINARY SOURCE_DIR as $1 $2)
set -u
bin=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
