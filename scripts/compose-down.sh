#!/usr/bin/env bash
# Stops and removes the compose stack of scripts/compose-up.sh (same COMPOSE_PROJECT_NAME and
# COMPOSE_FILES). Its volumes (the stack's Postgres and Redis data) stay unless you add --volumes:
#   npm run compose:down -- --volumes
# Bots still in meetings are not stopped by this: stop them through the API first (DELETE /bots/...),
# or a worker started later re-adopts them. The Docker engine stays up.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/compose.sh"
cd "$ROOT_DIR"
load_env
compose_select
docker-compose "${compose_args[@]}" down --remove-orphans "$@"
