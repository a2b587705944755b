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

RESULTS="$RUN_DIR/test-results.json"
rm -f "$RESULTS"
log "running the tests"
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json="$RESULTS" "$@"
status=$?
set -e

if [ -f "$RESULTS" ]; then
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
    // Failed tests, plus files that failed without running a test (e.g. an import or beforeAll error).
    const brokenFiles = (r.testResults ?? []).filter(
      (f) => f.status === "failed" && !(f.assertionResults ?? []).some((a) => a.status === "failed"),
    ).length;
    const failed = r.numFailedTests + brokenFiles;
    // Where the time goes, so a file that grows slow is seen at once.
    const slowest = (r.testResults ?? [])
      .map((f) => ({ file: require("path").relative(process.cwd(), f.name), seconds: (f.endTime - f.startTime) / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, 10);
    console.log(`the ${slowest.length} slowest test files (of ${(r.testResults ?? []).length}):`);
    for (const { file, seconds } of slowest) console.log(`${seconds.toFixed(0).padStart(6)} s  ${file}`);
    console.log(`wall time of the test run: ${((Date.now() - r.startTime) / 1000).toFixed(0)} s`);
    if (skipped) console.log(`${skipped} skipped or todo`);
    // The last line, alone and in exactly this form: what CI reads.
    console.log(`${r.numPassedTests} passed, ${failed} failed`);
  ' "$RESULTS"
else
  echo "0 passed, 1 failed"
  [ "$status" -ne 0 ] || status=1
fi
exit "$status"
