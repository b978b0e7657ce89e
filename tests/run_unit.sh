#!/bin/sh
# Runs each Check test binary given; stops at the first failure.
# Tests find tests/vectors through LLMSPEED_VECTORS.
: "${LLMSPEED_VECTORS:=$(cd "$(dirname "$0")" && pwd)/vectors}"
export LLMSPEED_VECTORS
LLMSPEED_ROOT=$(cd "$(dirname "$0")/.." && pwd)
export LLMSPEED_ROOT
status=0
for t in "$@"; do
	echo "== $t"
	"$t" || { echo "FAILED: $t"; status=1; break; }
done
exit $status
