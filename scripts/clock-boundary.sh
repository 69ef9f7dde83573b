#!/bin/bash
# Runs a command (a test file, usually) with the wall clock moved next to an hour or a day
# boundary, to prove that tests which aggregate by time do not depend on when they run.
#
#   scripts/clock-boundary.sh hour 5  npx vitest run test/compat/grafana-datasource.test.ts
#   scripts/clock-boundary.sh day -20 npx vitest run test/compat/sentry-issue-api.test.ts
#
# The second argument is how many seconds after the start the boundary comes (negative: it
# passed that long ago). The clock is libfaketime's (apt install faketime): a fixed offset for the
# command and every process it starts — test/helpers/server.ts hands FAKETIME and LD_PRELOAD on to
# the Errata server it starts, so the test and the server agree on the time. PostgreSQL keeps its
# own clock; Errata never asks the database for the time.
set -euo pipefail
kind=${1:?hour or day}; lead=${2:?seconds until the boundary}; shift 2
lib=${FAKETIME_LIB:-/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1}
[ -f "$lib" ] || { echo "libfaketime not found at $lib (apt install faketime)" >&2; exit 2; }
now=$(date -u +%s)
if [ "$kind" = day ]; then period=86400; else period=3600; fi
boundary=$(( (now / period + 1) * period ))
offset=$(( boundary - lead - now ))
export FAKETIME="+${offset}" FAKETIME_DONT_FAKE_MONOTONIC=1 LD_PRELOAD="$lib"
echo "clock at $(date -u -d "@$(( now + offset ))" +%FT%TZ), $kind boundary $(date -u -d "@$boundary" +%FT%TZ)" >&2
exec "$@"
