#!/usr/bin/env bash
# Stops what `npm run up` and `npm run demo` started. Bots keep running until their meetings end (a
# worker started later re-adopts them); the databases and the Docker engine are left running.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
for name in simulator worker api; do stop_pidfile "$name"; done
log "stopped"
