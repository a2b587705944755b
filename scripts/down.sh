#!/usr/bin/env bash
# Stops what `npm run up` and `npm run demo` started. Bots keep running until their meetings end (a
# worker started later re-adopts them), so the Docker engine is left running, and so are the
# databases; this says so, and how to stop the engine when these scripts started it.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
for name in simulator worker api; do stop_pidfile "$name"; done
log "stopped the API, the worker and the simulator"

engine_pidfile="$RUN_DIR/dockerd.pid"
if [ -f "$engine_pidfile" ] && kill -0 "$(cat "$engine_pidfile")" 2>/dev/null; then
  bots="$(docker ps --filter label=meetbot.meeting-id --quiet 2>/dev/null | wc -l || echo 0)"
  log "left running: the Docker engine these scripts started (pid $(cat "$engine_pidfile"); $bots bot container(s) in it), Postgres and Redis"
  log "to stop the engine too: stop the bots first (docker rm -f \$(docker ps -q --filter label=meetbot.meeting-id)), then kill $(cat "$engine_pidfile") (it runs with --live-restore, so bots would outlive it)"
elif pgrep -x dockerd >/dev/null 2>&1; then
  log "left running: this machine's Docker engine (not started by 'up'), Postgres and Redis"
fi
