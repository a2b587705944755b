#!/usr/bin/env bash
# Stops what `npm run up` started (the databases it may have started are left running).
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
for name in worker api; do stop_pidfile "$name"; done
log "stopped"
