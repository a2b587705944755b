#!/usr/bin/env bash
# Builds the bot's Docker image (and, without a registry, its Debian base) when their inputs changed.
# Starts a Docker engine when none runs. Prints how long each step took and the image size.
#   scripts/build-bot-image.sh            use dist/ as it is (run `npm run build` first)
#   scripts/build-bot-image.sh --compile  run `npm run build` first
# Settings: BOT_IMAGE, BOT_BASE_IMAGE (e.g. node:20-bookworm-slim), DEBIAN_MIRROR: see scripts/lib/docker.sh.
set -euo pipefail
. "$(dirname "$0")/lib/common.sh"
. "$(dirname "$0")/lib/docker.sh"
cd "$ROOT_DIR"

compile=0
for arg in "$@"; do
  case "$arg" in
    --compile) compile=1 ;;
    -h|--help) sed -n '2,7p' "$0"; exit 0 ;;
    *) die "unknown argument: $arg" ;;
  esac
done

timed() { # LABEL COMMAND...: runs it and logs how long it took
  local label="$1" start=$SECONDS
  shift
  "$@"
  log "$label: $((SECONDS - start)) s"
}

ensure_node_modules
timed "docker engine" ensure_docker
if [ "$compile" -eq 1 ]; then
  timed "npm run build" npm run -s build
else
  log "using dist/ as compiled (dist/bot/main.js from $(date -r dist/bot/main.js '+%F %T' 2>/dev/null || echo 'nowhere: run npm run build'))"
fi
if [ "$BOT_BASE_IMAGE" = "$BOT_LOCAL_BASE_IMAGE" ]; then
  timed "base image" ensure_bot_base_image
  log "$BOT_LOCAL_BASE_IMAGE: $(image_size_mb "$BOT_LOCAL_BASE_IMAGE") MB"
fi
timed "bot image" ensure_bot_image
log "$BOT_IMAGE: $(image_size_mb "$BOT_IMAGE") MB (base $BOT_BASE_IMAGE)"
