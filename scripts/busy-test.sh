#!/usr/bin/env bash
# `npm test` on a busy machine, as it must pass (docs/architecture.md, Development): RUNS times in a row
# (default 3), each from a fresh clone of HEAD (`npm ci`, then `npm test`), beside two CPU-bound processes
# that run the whole time. Prints one line per run and exits non-zero if any run failed. Not part of CI: it
# takes RUNS times the suite's duration on a loaded machine (about 7 minutes a run on 2 cores).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs=${RUNS:-3}
revision=$(git rev-parse HEAD)
work=$(mktemp -d)
node -e 'for(;;){}' &
hog1=$!
node -e 'for(;;){}' &
hog2=$!
trap 'kill $hog1 $hog2 2>/dev/null; rm -rf "$work"' EXIT

echo "npm test from fresh clones of $revision beside two CPU-bound processes, $runs runs"
failed=0
for run in $(seq 1 "$runs"); do
  clone="$work/run$run"
  git clone --quiet . "$clone" && git -C "$clone" checkout --quiet "$revision"
  started=$(date +%s)
  (cd "$clone" && npm ci --no-audit --no-fund >/dev/null 2>&1 && npm test) >"$work/run$run.log" 2>&1
  status=$?
  # vitest's summary line, without its colours.
  tests=$(sed 's/\x1b\[[0-9;]*m//g' "$work/run$run.log" | grep -E '^ +Tests ' | tail -1 | sed 's/^ *//')
  echo "run $run: exit $status in $(($(date +%s) - started)) s, load $(cut -d' ' -f1-3 /proc/loadavg): ${tests:-no summary}"
  if [ "$status" -ne 0 ]; then
    failed=1
    cp "$work/run$run.log" "busy-test-run$run.log"
    echo "  its output: busy-test-run$run.log"
  fi
done
exit $failed
