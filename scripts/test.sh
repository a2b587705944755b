#!/usr/bin/env bash
# The whole test suite from a fresh machine: installs what it needs, makes sure Postgres and Redis run,
# checks types, lint and formatting, runs every Vitest project, and ends with "N passed, N failed".
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$ROOT_DIR"

ensure_node_modules
load_env
. "$ROOT_DIR/scripts/lib/docker.sh" # after .env: it reads BOT_IMAGE and BOT_BASE_IMAGE
ensure_postgres
ensure_redis
ensure_bot_host_packages
ensure_test_tools
ensure_docker

log "typecheck, lint, format"
npm run -s typecheck
npm run -s lint
npm run -s format:check >/dev/null

# Two lanes at once (vitest.config.ts says why): the ten-minute time-base meeting in a Vitest of its
# own, and everything else in order in another. Arguments (a file, --project …) run one Vitest instead.
MAIN_RESULTS="$RUN_DIR/test-results.json"
LANE_RESULTS="$RUN_DIR/test-results-time-base.json"
LANE_LOG="$RUN_DIR/test-time-base.log"
rm -f "$MAIN_RESULTS" "$LANE_RESULTS"
vitest_json() { # RESULTS ARGS...: a Vitest run with the default and the JSON reporters
  local results="$1"
  shift
  npx vitest run --reporter=default --reporter=json --outputFile.json="$results" "$@"
}
set +e
lane_pid=""
if [ "$#" -eq 0 ]; then
  log "running the tests: the time-base lane in the background (log: $LANE_LOG), the rest here"
  vitest_json "$LANE_RESULTS" --project e2e-time-base >"$LANE_LOG" 2>&1 &
  lane_pid=$!
  vitest_json "$MAIN_RESULTS" --project unit --project integration --project e2e --project e2e-cpu-timing
  status=$?
else
  log "running the tests"
  vitest_json "$MAIN_RESULTS" "$@"
  status=$?
fi
if [ -n "$lane_pid" ]; then
  wait "$lane_pid"
  lane_status=$?
  log "the time-base lane (exit $lane_status):"
  cat "$LANE_LOG"
  [ "$lane_status" -eq 0 ] || status=$lane_status
fi
set -e

# The closing lines: the slowest files, the wall time, and "N passed, N failed" alone on the last
# line (what CI reads), over both lanes. A lane without a report counts as one failure.
node -e '
  const fs = require("fs");
  const path = require("path");
  const [expected, ...files] = process.argv.slice(1);
  const reports = files.filter((file) => fs.existsSync(file)).map((file) => JSON.parse(fs.readFileSync(file, "utf8")));
  const missing = Number(expected) - reports.length;
  const results = reports.flatMap((r) => r.testResults ?? []);
  const sum = (key) => reports.reduce((total, r) => total + (r[key] ?? 0), 0);
  const skipped = sum("numPendingTests") + sum("numTodoTests");
  // Failed tests, plus files that failed without running a test (e.g. an import or beforeAll error).
  const brokenFiles = results.filter(
    (f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed"),
  ).length;
  const failed = sum("numFailedTests") + brokenFiles + missing;
  // Where the time goes, so a file that grows slow is seen at once.
  const slowest = results
    .map((f) => ({ file: path.relative(process.cwd(), f.name), seconds: (f.endTime - f.startTime) / 1000 }))
    .sort((a, b) => b.seconds - a.seconds)
    .slice(0, 10);
  console.log(`the ${slowest.length} slowest test files (of ${results.length}):`);
  for (const { file, seconds } of slowest) console.log(`${seconds.toFixed(0).padStart(6)} s  ${file}`);
  if (reports.length) {
    const started = Math.min(...reports.map((r) => r.startTime));
    console.log(`wall time of the test run: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  }
  if (missing) console.log(`${missing} Vitest run(s) wrote no report`);
  if (skipped) console.log(`${skipped} skipped or todo`);
  console.log(`${sum("numPassedTests")} passed, ${failed} failed`);
' "$([ -n "$lane_pid" ] && echo 2 || echo 1)" "$MAIN_RESULTS" "$LANE_RESULTS"
[ -f "$MAIN_RESULTS" ] || [ "$status" -ne 0 ] || status=1
exit "$status"
