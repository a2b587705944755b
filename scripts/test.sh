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

# Without arguments, the projects of vitest.config.ts in three lanes at once, then one file group alone:
#   the bot image: compiled and built in the background from the start (e2e files wait for it);
#   main lane:  unit + integration, then the e2e project;
#   side lane:  the e2e-pages project (no build or image needed), then e2e-side once the image is built;
#   meeting lane: the ten-minute time-base meetings, Meet + Teams then Zoom (no image needed; they idle),
#                 then the e2e-late files once the image is built;
#   then alone: e2e-cpu-timing, once every lane is done.
# Each Vitest writes its own JSON report; the summary reads them all. Arguments (a file, --project …)
# run one Vitest instead.
REPORTS=()
rm -f "$RUN_DIR"/test-results*.json
vitest_json() { # NAME ARGS...: a Vitest run with the default reporter and a JSON report named NAME
  local results="$RUN_DIR/test-results-$1.json"
  shift
  rm -f "$results"
  REPORTS+=("$results")
  npx vitest run --reporter=default --reporter=json --outputFile.json="$results" "$@"
}
IMAGE_LOG="$RUN_DIR/test-bot-image.log"
IMAGE_STATUS="$RUN_DIR/test-bot-image.status"
wait_for_bot_image() { # succeeds once the background build has, prints its log when it failed
  while [ ! -s "$IMAGE_STATUS" ]; do sleep 2; done
  [ "$(cat "$IMAGE_STATUS")" = 0 ] && return 0
  log "building the bot image failed (scripts/build-bot-image.sh --compile):"
  cat "$IMAGE_LOG" >&2
  return 1
}
cpu_busy_percent() { # the machine's busy share of its CPU time over the next 3 s, in percent
  local _ user nice system idle iowait irq softirq steal busy1 idle1
  read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
  busy1=$((user + nice + system + irq + softirq + steal)) idle1=$((idle + iowait))
  sleep 3
  read -r _ user nice system idle iowait irq softirq steal _ </proc/stat
  local busy=$((user + nice + system + irq + softirq + steal - busy1)) idled=$((idle + iowait - idle1))
  echo $((100 * busy / (busy + idled + 1)))
}
# The CPU-deadline files check work done within a second of the voice: they start once what the lanes
# left behind has settled (containers being removed, bots leaving), at most three minutes. What still
# runs then is printed, so a failure there names its neighbours (CI once saw both tries of a speaking
# signal test starve, alone in its lane).
wait_for_quiet_machine() {
  local waited=0 busy
  busy=$(cpu_busy_percent)
  while [ "$busy" -gt 25 ] && [ "$waited" -lt 180 ]; do
    sleep 7
    waited=$((waited + 10))
    busy=$(cpu_busy_percent)
  done
  log "the machine before the CPU-deadline files: ${busy}% busy after waiting ${waited} s"
  if [ "$busy" -gt 25 ] || [ "$waited" -gt 0 ]; then
    top -b -c -n 2 -d 3 -o %CPU -w 200 | awk '/^top -/ { n++ } n == 2' | sed -n '7,17p' >&2 || true
    docker ps --format '{{.Names}} {{.Image}} {{.Status}}' 2>/dev/null | sed 's/^/  container: /' >&2 || true
  fi
}
status=0
set +e
if [ "$#" -eq 0 ]; then
  SIDE_LOG="$RUN_DIR/test-side-lane.log"
  MEETING_LOG="$RUN_DIR/test-meeting-lane.log"
  rm -f "$IMAGE_STATUS"
  log "building the bot image in the background (log: $IMAGE_LOG)"
  (bash scripts/build-bot-image.sh --compile >"$IMAGE_LOG" 2>&1; echo $? >"$IMAGE_STATUS") &
  # The e2e global setup skips the build this run does once.
  export MEETBOT_TEST_BOT_IMAGE_READY=1
  log "running the tests: the meeting lane (log: $MEETING_LOG) and the side lane (log: $SIDE_LOG) in the background, the main lane here"
  (
    lane=0
    vitest_json time-base --project e2e-time-base || lane=1
    if wait_for_bot_image; then vitest_json e2e-late --project e2e-late || lane=1; else lane=1; fi
    exit "$lane"
  ) >"$MEETING_LOG" 2>&1 &
  meeting_pid=$!
  (
    lane=0
    vitest_json e2e-pages --project e2e-pages || lane=1
    if wait_for_bot_image; then vitest_json e2e-side --project e2e-side || lane=1; else lane=1; fi
    exit "$lane"
  ) >"$SIDE_LOG" 2>&1 &
  side_pid=$!
  vitest_json unit-integration --project unit --project integration || status=1
  if wait_for_bot_image; then vitest_json e2e --project e2e || status=1; else status=1; fi
  wait "$side_pid" || status=1
  wait "$meeting_pid" || status=1
  log "the side lane:"
  cat "$SIDE_LOG"
  log "the meeting lane:"
  cat "$MEETING_LOG"
  # The background lanes' reports (a subshell's REPORTS is its own).
  REPORTS+=(
    "$RUN_DIR/test-results-time-base.json"
    "$RUN_DIR/test-results-e2e-late.json"
    "$RUN_DIR/test-results-e2e-pages.json"
    "$RUN_DIR/test-results-e2e-side.json"
  )
  log "the files with CPU deadlines, alone"
  wait_for_quiet_machine
  vitest_json e2e-cpu-timing --project e2e-cpu-timing || status=1
else
  log "running the tests"
  vitest_json main "$@" || status=1
fi
set -e

# The closing lines: the slowest files, the wall time, and "N passed, N failed" alone on the last
# line (what CI reads), over every Vitest run. A run without a report counts as one failure.
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
  // The failures by name, last, so a log cut to its tail still says what failed.
  for (const f of results.filter((r) => r.status === "failed")) {
    const file = path.relative(process.cwd(), f.name);
    const tests = (f.assertionResults ?? []).filter((a) => a.status === "failed");
    if (!tests.length) console.log(`FAILED ${file}: ${(f.message ?? "").split("\n")[0]}`);
    for (const test of tests) {
      console.log(`FAILED ${file} > ${test.fullName}`);
      // The assertion that failed, short: a cut log otherwise says only which test.
      const lines = (test.failureMessages ?? []).join("\n").split("\n").filter((l) => l.trim());
      const message = lines.filter((l) => !/^\s*at /.test(l)).slice(0, 3);
      const where = lines.find((l) => /^\s*at /.test(l) && !l.includes("node_modules"));
      for (const line of [...message, ...(where ? [where.trim()] : [])]) {
        console.log(`    ${line.replace(/\x1b\[[0-9;]*m/g, "").slice(0, 300)}`);
      }
    }
  }
  // Tests that failed once and passed on their retry (the e2e projects retry once): named, with the
  // first failure, so a test that turns flaky is seen even though the run passes.
  for (const f of results) {
    const file = path.relative(process.cwd(), f.name);
    for (const test of (f.assertionResults ?? []).filter((a) => a.status === "passed" && (a.failureMessages ?? []).length)) {
      const first = test.failureMessages[0].split("\n").find((l) => l.trim()) ?? "";
      console.log(`PASSED ON A RETRY ${file} > ${test.fullName}`);
      console.log(`    first try: ${first.replace(/\x1b\[[0-9;]*m/g, "").trim().slice(0, 300)}`);
    }
  }
  if (missing) console.log(`${missing} Vitest run(s) wrote no report`);
  if (skipped) console.log(`${skipped} skipped or todo`);
  console.log(`${sum("numPassedTests")} passed, ${failed} failed`);
' "${#REPORTS[@]}" "${REPORTS[@]}"
for report in "${REPORTS[@]}"; do [ -f "$report" ] || status=1; done
exit "$status"
