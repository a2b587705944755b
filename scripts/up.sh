#!/usr/bin/env bash
# One command from a fresh Debian/Ubuntu machine with Node 20 to a running service on local defaults:
# dependencies, Postgres, Redis, a Docker engine, migrations, build, the bot image, API and worker in
# the background, then the base URL and an API key.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$ROOT_DIR"

ensure_node_modules
load_env
. "$ROOT_DIR/scripts/lib/docker.sh" # after .env: it reads BOT_IMAGE and BOT_BASE_IMAGE
. "$ROOT_DIR/scripts/lib/service-stores.sh"
# Postgres and Redis that need a credential: the machine's when they do, else the service's own.
ensure_service_postgres
ensure_service_redis
ensure_admin_key
ensure_docker

log "building"
npm run -s build
if [ "$BOT_BASE_IMAGE" = "$BOT_LOCAL_BASE_IMAGE" ]; then ensure_bot_base_image; fi
ensure_bot_image

log "migrating the database"
node dist/scripts/migrate.js

API_PORT="${API_PORT:-8056}"
API_HOST="${API_HOST:-127.0.0.1}"
BASE_URL="http://${API_HOST}:${API_PORT}"
log "starting the API on $BASE_URL (log: .run/api.log)"
start_background api node dist/api/main.js
for _ in $(seq 1 60); do
  curl -fsS "$BASE_URL/readyz" >/dev/null 2>&1 && break
  kill -0 "$(cat "$RUN_DIR/api.pid")" 2>/dev/null || { tail -n 30 "$RUN_DIR/api.log" >&2; die "the API exited"; }
  sleep 0.5
done
curl -fsS "$BASE_URL/readyz" >/dev/null || { tail -n 30 "$RUN_DIR/api.log" >&2; die "the API is not ready"; }

log "starting a worker (log: .run/worker.log)"
start_background worker node dist/worker/main.js
sleep 1
kill -0 "$(cat "$RUN_DIR/worker.pid")" 2>/dev/null || { tail -n 30 "$RUN_DIR/worker.log" >&2; die "the worker exited"; }

API_KEY="$(node dist/scripts/keys.js create --email "${MEETBOT_USER_EMAIL:-you@localhost.localdomain}" --key-name quickstart --replace --quiet)"

cat <<INFO

  Meetbot is up.

  Base URL:  $BASE_URL
  API key:   $API_KEY  (earlier "quickstart" keys are revoked)
  Web app:   $BASE_URL/app/  (sign in with the API key above)
  Docs:      $BASE_URL/docs
  Queues:    $BASE_URL/admin/queues  (user: admin, password: ADMIN_API_KEY in .env)
  Metrics:   $BASE_URL/metrics and http://${WORKER_METRICS_HOST:-127.0.0.1}:${WORKER_METRICS_PORT:-9464}/metrics (Prometheus)

  Try:       curl -s -H "X-API-Key: $API_KEY" $BASE_URL/meetings
  Demo:      npm run demo   (a simulated meeting, transcribed live)
  Stop:      npm run down

INFO
