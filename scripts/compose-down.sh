#!/usr/bin/env bash
# Stops and removes the compose stack of scripts/compose-up.sh (same COMPOSE_PROJECT_NAME and
# COMPOSE_FILES). Bots still in meetings are not stopped by this: stop them through the API first
# (DELETE /bots/...), or a worker started later re-adopts them. Postgres, Redis and the engine stay.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
cd "$ROOT_DIR"
load_env
export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-meetbot}"
COMPOSE_FILES="${COMPOSE_FILES:-docker/compose.yml docker/compose.host.yml}"
compose_args=()
for file in $COMPOSE_FILES; do compose_args+=(-f "$file"); done
docker-compose "${compose_args[@]}" down --remove-orphans
