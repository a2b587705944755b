#!/usr/bin/env bash
# Meetbot under docker-compose on this machine: builds the bot image and the service image (only
# what changed), starts docker/compose.yml, waits for both API replicas' /readyz, creates a user and
# key with the keys CLI inside api-1, and prints the base URL and the key.
#
# By default for an engine without a bridge (as scripts/lib/docker.sh starts it): adds
# docker/compose.host.yml (host networking) and uses the Postgres and Redis of DATABASE_URL and
# REDIS_URL (.env, else this machine's, started by `npm run up`'s helpers when absent).
# COMPOSE_FILES="docker/compose.yml docker/compose.ports.yml docker/compose.stores.yml": a bridge
# network with Postgres and Redis in containers instead (needs a registry to pull them).
#
# Settings (environment or .env): COMPOSE_PROJECT_NAME (meetbot), SERVICE_IMAGE, SERVICE_BASE_IMAGE
# (default the local offline base meetbot/bot-base:trixie; e.g. node:20-bookworm-slim), BOT_IMAGE,
# API_PORT_1 / API_PORT_2 (8056 / 8057), WORKERS (1), QUEUE_PREFIX, ADMIN_API_KEY, EXTRA_MEETING_ORIGINS,
# MEETBOT_USER_EMAIL, and every setting of the README's tables that docker/compose.yml passes on.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$ROOT_DIR"

ensure_node_modules
load_env
. "$ROOT_DIR/scripts/lib/docker.sh" # after .env: it reads BOT_IMAGE, BOT_BASE_IMAGE and SERVICE_* settings
ensure_docker
command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose

export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-meetbot}"
COMPOSE_FILES="${COMPOSE_FILES:-docker/compose.yml docker/compose.host.yml}"
compose_args=()
for file in $COMPOSE_FILES; do compose_args+=(-f "$file"); done
case " $COMPOSE_FILES " in
  *compose.stores.yml*) ;;
  *)
    ensure_postgres
    ensure_redis
    export DATABASE_URL="$(pg_url)" REDIS_URL="$(redis_url)"
    ;;
esac
ensure_admin_key

log "building"
npm run -s build
if [ "$BOT_BASE_IMAGE" = "$BOT_LOCAL_BASE_IMAGE" ] || [ "$SERVICE_BASE_IMAGE" = "$BOT_LOCAL_BASE_IMAGE" ]; then
  ensure_bot_base_image
fi
ensure_bot_image
ensure_service_image

export SERVICE_IMAGE BOT_IMAGE ADMIN_API_KEY
export API_PORT_1="${API_PORT_1:-8056}" API_PORT_2="${API_PORT_2:-8057}"
DOCKER_GID="$(stat -c %g /var/run/docker.sock)"
export DOCKER_GID

log "starting the stack (project $COMPOSE_PROJECT_NAME: ${COMPOSE_FILES})"
docker-compose "${compose_args[@]}" up -d --remove-orphans --scale "worker=${WORKERS:-1}"

BASE_URL="http://127.0.0.1:${API_PORT_1}"
for port in "$API_PORT_1" "$API_PORT_2"; do
  ready=0
  for _ in $(seq 1 120); do
    if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then ready=1; break; fi
    sleep 0.5
  done
  if [ "$ready" -ne 1 ]; then
    docker-compose "${compose_args[@]}" ps >&2 || true
    docker-compose "${compose_args[@]}" logs --tail 30 migrate api-1 api-2 >&2 || true
    die "the API on port $port is not ready"
  fi
done

API_KEY="$(docker-compose "${compose_args[@]}" exec -T api-1 node dist/scripts/keys.js create \
  --email "${MEETBOT_USER_EMAIL:-you@localhost.localdomain}" --key-name compose --replace --quiet | tr -d '\r')"

cat <<INFO

  Meetbot runs under docker-compose (project $COMPOSE_PROJECT_NAME).

  Base URL:  $BASE_URL  (second replica: http://127.0.0.1:${API_PORT_2})
  API key:   $API_KEY  (earlier "compose" keys are revoked)
  Queues:    $BASE_URL/admin/queues  (user: admin, password: ADMIN_API_KEY in .env)
  Status:    docker-compose ${compose_args[*]} ps
  Workers:   WORKERS=3 npm run compose:up   (or: docker-compose ... up -d --scale worker=3)
  Stop:      npm run compose:down

INFO
