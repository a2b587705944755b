#!/usr/bin/env bash
# A simulated meeting, transcribed live: brings the stack up with the simulator's origin allowed,
# starts the simulator, sends a bot through the public API and prints the transcript as it grows.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$ROOT_DIR"

SIMULATOR_PORT="${SIMULATOR_PORT:-4100}"
SIMULATOR_URL="http://127.0.0.1:${SIMULATOR_PORT}"
load_env
case ",${EXTRA_MEETING_ORIGINS:-}," in
  *",${SIMULATOR_URL},"*) ;;
  *) set_env_value EXTRA_MEETING_ORIGINS "${EXTRA_MEETING_ORIGINS:+${EXTRA_MEETING_ORIGINS},}${SIMULATOR_URL}" ;;
esac

ensure_demo_packages
bash "$ROOT_DIR/scripts/up.sh" >"$RUN_DIR/up.log" 2>&1 || { cat "$RUN_DIR/up.log" >&2; die "npm run up failed"; }
log "stack is up (details: .run/up.log)"

log "starting the simulator on $SIMULATOR_URL (log: .run/simulator.log)"
start_background simulator node dist/simulator/main.js --port "$SIMULATOR_PORT"
for _ in $(seq 1 40); do curl -fsS "$SIMULATOR_URL/api/meetings" >/dev/null 2>&1 && break; sleep 0.25; done

load_env
KEY="$(node dist/scripts/keys.js create --email demo@localhost.localdomain --key-name demo --quiet)"
node dist/scripts/demo.js --api "http://${API_HOST:-127.0.0.1}:${API_PORT:-8056}" --key "$KEY" --simulator "$SIMULATOR_URL" "$@"
