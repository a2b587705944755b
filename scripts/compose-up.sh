#!/usr/bin/env bash
# Meetbot under docker-compose on this machine: builds the images (only what changed), starts
# docker/compose.yml (Postgres, Redis, the migration, two API replicas, workers), waits for both API
# replicas' /readyz, creates a user and key with the keys CLI inside api-1, and prints the base URL
# and the key.
#
# Layout: on an engine without a bridge network (as scripts/lib/docker.sh starts it) docker/compose.host.yml
# (host networking; Postgres on 5433 and Redis on 6380 so they sit beside this machine's own), else
# docker/compose.ports.yml (the API published on 127.0.0.1). COMPOSE_FILES overrides the choice.
# Images: the service image on SERVICE_BASE_IMAGE (default the local offline base meetbot/bot-base:trixie;
# e.g. node:20-bookworm-slim with a registry); Postgres and Redis from POSTGRES_IMAGE and REDIS_IMAGE,
# by default built here from Debian's packages (docker/stores.Dockerfile) when the service builds on
# the local base, the public postgres:15 and redis:7 otherwise.
#
# Settings (environment or .env): COMPOSE_PROJECT_NAME (meetbot), WORKERS (1), API_PORT_1 / API_PORT_2
# (8056 / 8057), POSTGRES_PORT, REDIS_PORT, POSTGRES_PASSWORD and REDIS_PASSWORD (generated into .env), ADMIN_API_KEY
# (generated into .env), SERVICE_IMAGE, BOT_IMAGE, QUEUE_PREFIX, EXTRA_MEETING_ORIGINS,
# MEETBOT_USER_EMAIL, and every setting docker/compose.yml passes on.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$ROOT_DIR"

ensure_node_modules
load_env
. "$ROOT_DIR/scripts/lib/docker.sh" # after .env: it reads BOT_IMAGE, BOT_BASE_IMAGE and SERVICE_* settings
. "$ROOT_DIR/scripts/lib/compose.sh"
ensure_docker
command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose

compose_select

ensure_admin_key
if [ -z "${POSTGRES_PASSWORD:-}" ]; then
  set_env_value POSTGRES_PASSWORD "$(node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))')"
  log "generated a password for the stack's Postgres (POSTGRES_PASSWORD in .env)"
fi
if [ -z "${REDIS_PASSWORD:-}" ]; then
  set_env_value REDIS_PASSWORD "$(node -e 'console.log(require("crypto").randomBytes(18).toString("hex"))')"
  log "generated a password for the stack's Redis (REDIS_PASSWORD in .env)"
fi

log "building"
npm run -s build
ensure_bot_image
ensure_service_image
if [ -z "${POSTGRES_IMAGE:-}" ] && [ "$SERVICE_BASE_IMAGE" = "$BOT_LOCAL_BASE_IMAGE" ]; then POSTGRES_IMAGE="$STORES_LOCAL_IMAGE"; fi
if [ -z "${REDIS_IMAGE:-}" ] && [ "$SERVICE_BASE_IMAGE" = "$BOT_LOCAL_BASE_IMAGE" ]; then REDIS_IMAGE="$STORES_LOCAL_IMAGE"; fi
if [ "${POSTGRES_IMAGE:-}" = "$STORES_LOCAL_IMAGE" ] || [ "${REDIS_IMAGE:-}" = "$STORES_LOCAL_IMAGE" ]; then
  ensure_stores_image
fi

export SERVICE_IMAGE BOT_IMAGE ADMIN_API_KEY POSTGRES_PASSWORD REDIS_PASSWORD
[ -z "${POSTGRES_IMAGE:-}" ] || export POSTGRES_IMAGE
[ -z "${REDIS_IMAGE:-}" ] || export REDIS_IMAGE
export API_PORT_1="${API_PORT_1:-8056}" API_PORT_2="${API_PORT_2:-8057}"
DOCKER_GID="$(stat -c %g /var/run/docker.sock)"
export DOCKER_GID

# With host networking a port something else already listens on fails one container after the
# others started: say so first (unless it is this stack, already running).
if [ "$host_network" -eq 1 ] && [ -z "$(docker-compose "${compose_args[@]}" ps -q 2>/dev/null)" ]; then
  for setting in API_PORT_1=8056 API_PORT_2=8057 POSTGRES_PORT=5433 REDIS_PORT=6380; do
    name="${setting%%=*}"
    port="${!name:-${setting#*=}}"
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      die "port $port ($name) is in use on this machine: set $name to a free port"
    fi
  done
fi

log "starting the stack (project $COMPOSE_PROJECT_NAME: ${COMPOSE_FILES})"
docker-compose "${compose_args[@]}" up -d --remove-orphans --scale "worker=${WORKERS:-1}"

if [ "$host_network" -eq 1 ]; then api_host="${API_BIND_HOST:-127.0.0.1}"; else api_host="${API_PUBLISH_HOST:-127.0.0.1}"; fi
[ "$api_host" != 0.0.0.0 ] || api_host=127.0.0.1
for port in "$API_PORT_1" "$API_PORT_2"; do
  ready=0
  for _ in $(seq 1 120); do
    if curl -fsS "http://$api_host:$port/readyz" >/dev/null 2>&1; then ready=1; break; fi
    sleep 0.5
  done
  if [ "$ready" -ne 1 ]; then
    docker-compose "${compose_args[@]}" ps >&2 || true
    docker-compose "${compose_args[@]}" logs --tail 30 postgres redis migrate api-1 api-2 >&2 || true
    die "the API on port $port is not ready"
  fi
done

keys=(docker-compose "${compose_args[@]}" exec -T api-1 node dist/scripts/keys.js)
API_KEY="$("${keys[@]}" create --email "${MEETBOT_USER_EMAIL:-you@localhost.localdomain}" --key-name compose --replace --quiet | tr -d '\r')"
BASE_URL="http://$api_host:${API_PORT_1}"

cat <<INFO

  Meetbot runs under docker-compose (project $COMPOSE_PROJECT_NAME).

  Base URL:  $BASE_URL  (second replica: http://$api_host:${API_PORT_2})
  API key:   $API_KEY  (earlier "compose" keys are revoked)
  Web app:   $BASE_URL/app/  (sign in with the API key above)
  More keys: COMPOSE_PROJECT_NAME=$COMPOSE_PROJECT_NAME ${keys[*]} create --email ann@example.com
  Queues:    $BASE_URL/admin/queues  (user: admin, password: ADMIN_API_KEY in .env)
  Status:    COMPOSE_PROJECT_NAME=$COMPOSE_PROJECT_NAME docker-compose ${compose_args[*]} ps
  Workers:   WORKERS=3 npm run compose:up   (or: docker-compose ... up -d --scale worker=3)
  Stop:      npm run compose:down   (add -- --volumes to delete the database and Redis data too)

INFO
