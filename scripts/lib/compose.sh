# shellcheck shell=bash
# The compose files and project of scripts/compose-up.sh and compose-down.sh. Source it after
# scripts/lib/common.sh, with a Docker engine running.
#
# compose_select sets COMPOSE_PROJECT_NAME (default meetbot, exported), COMPOSE_FILES (default:
# docker/compose.yml plus compose.host.yml on an engine without a bridge network, as
# scripts/lib/docker.sh starts it, else compose.ports.yml), compose_args (-f FILE ...) and
# host_network (1 with compose.host.yml).
compose_select() {
  export COMPOSE_PROJECT_NAME="${COMPOSE_PROJECT_NAME:-meetbot}"
  if [ -z "${COMPOSE_FILES:-}" ]; then
    if docker network inspect bridge >/dev/null 2>&1; then
      COMPOSE_FILES="docker/compose.yml docker/compose.ports.yml"
    else
      COMPOSE_FILES="docker/compose.yml docker/compose.host.yml"
    fi
  fi
  compose_args=()
  local file
  for file in $COMPOSE_FILES; do compose_args+=(-f "$file"); done
  host_network=0
  case " $COMPOSE_FILES " in *compose.host.yml*) host_network=1 ;; esac
}
