# shellcheck shell=bash
# Docker engine and bot image helpers. Source it after scripts/lib/common.sh (it uses log, die,
# as_root, apt_install, ROOT_DIR and RUN_DIR from there); it sources nothing itself.
#
# Settings (environment):
#   BOT_IMAGE       tag of the bot image                       (default meetbot/bot:latest)
#   BOT_BASE_IMAGE  base image for docker/bot.Dockerfile       (default meetbot/bot-base:trixie, built
#                   here offline with debootstrap; set e.g. node:20-bookworm-slim to use a registry base)
#   DEBIAN_MIRROR   mirror for the local base                  (default: read from the apt sources)
#   DEBIAN_SECURITY_MIRROR                                       (default: read from the apt sources)

BOT_IMAGE="${BOT_IMAGE:-meetbot/bot:latest}"
BOT_LOCAL_BASE_IMAGE="meetbot/bot-base:trixie"
BOT_BASE_IMAGE="${BOT_BASE_IMAGE:-$BOT_LOCAL_BASE_IMAGE}"
BOT_DOCKERFILE="$ROOT_DIR/docker/bot.Dockerfile"
BOT_BASE_RECIPE="$ROOT_DIR/docker/bot-base.sh"
BOT_STAGE_SCRIPT="$ROOT_DIR/docker/stage-bot.mjs"
BOT_STAGE_DIR="$ROOT_DIR/docker/.build/bot"
BOT_HASH_LABEL="org.meetbot.inputs-hash"

docker_answers() { timeout 20 docker info >/dev/null 2>&1; }

# Installs Debian's engine when absent and starts one when none answers. No bridge and no iptables:
# nothing here creates Docker networks; containers use the host's network (--network host). Live
# restore: restarting the engine leaves running bots in their meetings.
ensure_docker() {
  if ! command -v dockerd >/dev/null 2>&1 || ! command -v docker >/dev/null 2>&1; then
    apt_install docker.io
  fi
  docker_answers && return 0
  if [ -n "${DOCKER_HOST:-}" ]; then
    die "the Docker engine at DOCKER_HOST=$DOCKER_HOST does not answer (docker info)"
  fi
  if pgrep -x dockerd >/dev/null 2>&1; then
    log "waiting for the running Docker engine"
  else
    log "starting the Docker engine (log: $RUN_DIR/dockerd.log)"
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo -n)
    # Detached from our stdio (callers' pipes close) and in a session of its own (a signal to the
    # caller's process group does not reach it); the pid file lets `stop_pidfile dockerd` end it.
    (cd / && exec setsid nohup "${sudo[@]}" dockerd --iptables=false --ip6tables=false --bridge=none --live-restore \
      >"$RUN_DIR/dockerd.log" 2>&1 </dev/null) &
    echo $! >"$RUN_DIR/dockerd.pid"
  fi
  local _
  for _ in $(seq 1 60); do
    docker_answers && return 0
    sleep 1
  done
  if pgrep -x dockerd >/dev/null 2>&1 && [ "$(id -u)" -ne 0 ]; then
    die "the Docker engine runs but $(id -un) may not use it: add the user to the docker group or run as root"
  fi
  die "the Docker engine did not start within 60 s (see $RUN_DIR/dockerd.log)"
}

# Prints "URI<TAB>SUITES" per apt source entry (deb822 .sources files and one-line .list files).
apt_source_entries() {
  local f
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    awk '$1 == "deb" { i = 2; if ($2 ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } print $i "\t" $(i + 1) }' "$f"
  done
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    awk '
      function flush() { if (types ~ /(^| )deb( |$)/ && enabled != "no") { n = split(uris, u, " "); for (k = 1; k <= n; k++) print u[k] "\t" suites } types = uris = suites = ""; enabled = "" }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      tolower($1) == "types:"   { $1 = ""; types = $0 }
      tolower($1) == "uris:"    { $1 = ""; uris = $0 }
      tolower($1) == "suites:"  { $1 = ""; suites = $0 }
      tolower($1) == "enabled:" { enabled = tolower($2) }
      END { flush() }' "$f"
  done
}

# The Debian archive this machine already uses (the entry with a plain Debian suite such as bookworm).
debian_mirror() {
  if [ -n "${DEBIAN_MIRROR:-}" ]; then printf '%s' "$DEBIAN_MIRROR"; return 0; fi
  local uri
  uri="$(apt_source_entries | awk -F'\t' '
    $2 ~ /(^| )(buster|bullseye|bookworm|trixie|forky|duke|sid|stable|testing|unstable|oldstable)( |$)/ { print $1; exit }')"
  [ -n "$uri" ] || die "no Debian mirror found in the apt sources; set DEBIAN_MIRROR (e.g. http://deb.debian.org/debian)"
  printf '%s' "${uri%/}"
}

# The Debian security archive from the apt sources, or nothing.
debian_security_mirror() {
  if [ -n "${DEBIAN_SECURITY_MIRROR+x}" ]; then printf '%s' "$DEBIAN_SECURITY_MIRROR"; return 0; fi
  apt_source_entries | awk -F'\t' '$2 ~ /-security/ { sub(/\/$/, "", $1); print $1; exit }'
}

# sha256 of the named files and of every file (name and content) under the named directories.
inputs_hash() {
  local path
  for path in "$@"; do
    if [ -d "$path" ]; then
      (cd "$path" && find . -type f ! -name '*.map' -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum) | sed "s|  \./|  ${path#"$ROOT_DIR"/}/|"
    elif [ -f "$path" ]; then
      printf '%s  %s\n' "$(sha256sum <"$path" | cut -d' ' -f1)" "${path#"$ROOT_DIR"/}"
    else
      printf 'missing  %s\n' "${path#"$ROOT_DIR"/}"
    fi
  done | sha256sum | cut -d' ' -f1
}

image_label() { # IMAGE LABEL: prints the label's value, nothing when the image or label is missing
  docker image inspect --format "{{ index .Config.Labels \"$2\" }}" "$1" 2>/dev/null | grep -v '^<no value>$' || true
}

image_size_mb() { docker image inspect --format '{{ .Size }}' "$1" | awk '{ printf "%.0f", $1 / 1000 / 1000 }'; }

# The base's image id when it is the local offline base (built first when needed), else nothing: a
# rebuilt local base changes the hash of every image built on it.
base_image_id() { # BASE
  [ "$1" = "$BOT_LOCAL_BASE_IMAGE" ] || return 0
  ensure_bot_base_image >&2
  docker image inspect --format '{{ .Id }}' "$BOT_LOCAL_BASE_IMAGE"
}

# Builds IMAGE from DOCKERFILE and CONTEXT on BASE (build arg BASE_IMAGE), labelled with HASH, and
# removes the image it replaces (which fails harmlessly while a container still uses it).
build_image() { # IMAGE BASE HASH DOCKERFILE CONTEXT
  local image="$1" base="$2" hash="$3" dockerfile="$4" context="$5" previous
  previous="$(docker image inspect --format '{{ .Id }}' "$image" 2>/dev/null || true)"
  # Host network for RUN steps: this engine has no bridge (a registry base installs packages with apt).
  # The classic builder needs no buildx component (Debian's docker.io ships none) and builds on a
  # locally imported base with no registry; newer engines print a deprecation that tells the user to
  # remove DOCKER_BUILDKIT=0, a variable they never set, so that notice is left out of the output.
  (DOCKER_BUILDKIT=0 docker build --network host --build-arg "BASE_IMAGE=$base" --label "$BOT_HASH_LABEL=$hash" \
    -f "$dockerfile" -t "$image" "$context" 2>&1) |
    sed -e '/^DEPRECATED: The legacy builder is deprecated/,/environment-variable\.$/d' || return 1
  if [ -n "$previous" ] && [ "$previous" != "$(docker image inspect --format '{{ .Id }}' "$image")" ]; then
    docker image rm "$previous" >/dev/null 2>&1 || true
  fi
}

# Runs FUNCTION while holding $RUN_DIR/NAME.lock: one build of a kind at a time (tests and scripts may
# start them together, and a build's staging folder is shared).
with_build_lock() { # NAME WHAT FUNCTION
  (
    flock -w 1800 9 || die "another $2 build holds $RUN_DIR/$1.lock"
    "$3"
  ) 9>"$RUN_DIR/$1.lock"
}

# The hash an image is labelled with: its base (name and id) and its inputs (files and folders).
image_inputs_hash() { # BASE_IMAGE INPUT...
  local base="$1" base_id
  shift
  base_id="$(base_image_id "$base")" || return 1
  {
    printf '%s %s\n' "$base" "$base_id"
    inputs_hash "$@"
  } | sha256sum | cut -d' ' -f1
}

# The offline base: Debian trixie (debootstrap) with Chromium, Node.js and pocketsphinx, imported
# into Docker. Rebuilt only when docker/bot-base.sh changes (its hash is a label on the image).
BOT_BASE_CHECKED=0
ensure_bot_base_image() {
  [ "$BOT_BASE_CHECKED" = 1 ] && return 0 # already checked (or rebuilt) by this shell
  with_build_lock bot-base "base image" ensure_bot_base_image_locked || return 1
  BOT_BASE_CHECKED=1
}

ensure_bot_base_image_locked() {
  local hash
  hash="$(inputs_hash "$BOT_BASE_RECIPE")"
  if [ "${BOT_IMAGE_REBUILD:-0}" != 1 ] && [ "$(image_label "$BOT_LOCAL_BASE_IMAGE" "$BOT_HASH_LABEL")" = "$hash" ]; then
    log "base image $BOT_LOCAL_BASE_IMAGE is up to date"
    return 0
  fi
  command -v debootstrap >/dev/null 2>&1 || apt_install debootstrap
  local mirror security
  mirror="$(debian_mirror)"
  security="$(debian_security_mirror)"
  log "building base image $BOT_LOCAL_BASE_IMAGE from $mirror (a few minutes)"
  as_root env MIRROR="$mirror" SECURITY_MIRROR="$security" HASH_LABEL="$BOT_HASH_LABEL=$hash" \
    bash "$BOT_BASE_RECIPE" "$BOT_LOCAL_BASE_IMAGE" || die "building the base image failed"
}

# Builds the bot image when its inputs changed since the image was built (hash label), and the
# local base first when that is the base. Needs `npm run build` first: dist/bot/main.js is the entrypoint.
# BOT_IMAGE_REBUILD=1 rebuilds both anyway (e.g. to pick up Debian's security updates).
ensure_bot_image() {
  with_build_lock bot-image "bot image" ensure_bot_image_locked
}

ensure_bot_image_locked() {
  [ -d "$ROOT_DIR/dist/bot" ] || die "dist/bot is missing: run \`npm run build\` first"
  [ -f "$ROOT_DIR/dist/bot/main.js" ] || log "warning: dist/bot/main.js is missing, the image's entrypoint will fail"
  [ -x "$ROOT_DIR/node_modules/.bin/esbuild" ] || die "node_modules/.bin/esbuild is missing: run \`npm install\` first"
  local hash
  hash="$(image_inputs_hash "$BOT_BASE_IMAGE" "$BOT_DOCKERFILE" "$ROOT_DIR/.dockerignore" "$BOT_STAGE_SCRIPT" \
    "$ROOT_DIR/package-lock.json" "$ROOT_DIR/dist/bot" "$ROOT_DIR/dist/shared")"
  if [ "${BOT_IMAGE_REBUILD:-0}" != 1 ] && [ "$(image_label "$BOT_IMAGE" "$BOT_HASH_LABEL")" = "$hash" ]; then
    log "bot image $BOT_IMAGE is up to date"
    return 0
  fi
  log "staging the bot (dist/bot + the shared code and packages it imports)"
  (cd "$ROOT_DIR" && node "$BOT_STAGE_SCRIPT" "$BOT_STAGE_DIR") || die "staging the bot failed"
  log "building bot image $BOT_IMAGE on $BOT_BASE_IMAGE"
  build_image "$BOT_IMAGE" "$BOT_BASE_IMAGE" "$hash" "$BOT_DOCKERFILE" "$ROOT_DIR" || die "building the bot image failed"
  # Untagged images of ours (bases that bot image built on) go too; each removal fails harmlessly
  # while a container still uses the image.
  local stale
  for stale in $(docker image ls -q --filter dangling=true --filter "label=$BOT_HASH_LABEL"); do
    docker image rm "$stale" >/dev/null 2>&1 || true
  done
}

# The service image (docker/service.Dockerfile): the compiled API, worker, migration and keys CLI
# with their production packages, for docker/compose.yml. Needs `npm run build` first. Rebuilt only
# when its inputs changed (hash label); the packages are installed on this machine into the staging
# folder (`npm install --omit=dev`, from npm's cache when it has them), so the build itself fetches nothing.
SERVICE_IMAGE="${SERVICE_IMAGE:-meetbot/service:latest}"
SERVICE_BASE_IMAGE="${SERVICE_BASE_IMAGE:-$BOT_LOCAL_BASE_IMAGE}"
SERVICE_DOCKERFILE="$ROOT_DIR/docker/service.Dockerfile"
SERVICE_STAGE_DIR="$ROOT_DIR/docker/.build/service/app"

ensure_service_image() {
  with_build_lock service-image "service image" ensure_service_image_locked
}

ensure_service_image_locked() {
  local part
  for part in api worker shared scripts migrations web; do
    [ -d "$ROOT_DIR/dist/$part" ] || die "dist/$part is missing: run \`npm run build\` first"
  done
  local hash
  hash="$(image_inputs_hash "$SERVICE_BASE_IMAGE" "$SERVICE_DOCKERFILE" "$ROOT_DIR/package.json" "$ROOT_DIR/package-lock.json" \
    "$ROOT_DIR/dist/api" "$ROOT_DIR/dist/worker" "$ROOT_DIR/dist/shared" "$ROOT_DIR/dist/scripts" "$ROOT_DIR/dist/migrations" "$ROOT_DIR/dist/web")"
  if [ "${SERVICE_IMAGE_REBUILD:-0}" != 1 ] && [ "$(image_label "$SERVICE_IMAGE" "$BOT_HASH_LABEL")" = "$hash" ]; then
    log "service image $SERVICE_IMAGE is up to date"
    return 0
  fi
  log "staging the service (dist/ and production packages)"
  rm -rf "$SERVICE_STAGE_DIR"
  mkdir -p "$SERVICE_STAGE_DIR/dist"
  cp "$ROOT_DIR/package.json" "$ROOT_DIR/package-lock.json" "$SERVICE_STAGE_DIR/"
  for part in api worker shared scripts migrations web; do
    cp -a "$ROOT_DIR/dist/$part" "$SERVICE_STAGE_DIR/dist/"
  done
  find "$SERVICE_STAGE_DIR/dist" -name '*.map' -delete
  # `npm install` rather than `ci`, as ensure_node_modules: the lock file may lack other platforms' binaries.
  (cd "$SERVICE_STAGE_DIR" && npm install --omit=dev --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error) ||
    die "installing the production packages failed"
  log "building service image $SERVICE_IMAGE on $SERVICE_BASE_IMAGE"
  build_image "$SERVICE_IMAGE" "$SERVICE_BASE_IMAGE" "$hash" "$SERVICE_DOCKERFILE" "$SERVICE_STAGE_DIR" ||
    die "building the service image failed"
}

# Postgres and Redis from Debian's packages (docker/stores.Dockerfile), for docker/compose.yml on
# machines without a registry (POSTGRES_IMAGE and REDIS_IMAGE; the public postgres and redis images
# otherwise). Rebuilt only when its inputs changed (hash label).
STORES_LOCAL_IMAGE="meetbot/stores:trixie"
STORES_DOCKERFILE="$ROOT_DIR/docker/stores.Dockerfile"
STORES_ENTRYPOINT="$ROOT_DIR/docker/stores-entrypoint.sh"
STORES_STAGE_DIR="$ROOT_DIR/docker/.build/stores"

ensure_stores_image() {
  with_build_lock stores-image "stores image" ensure_stores_image_locked
}

ensure_stores_image_locked() {
  local hash
  hash="$(image_inputs_hash "$BOT_LOCAL_BASE_IMAGE" "$STORES_DOCKERFILE" "$STORES_ENTRYPOINT")"
  if [ "${BOT_IMAGE_REBUILD:-0}" != 1 ] && [ "$(image_label "$STORES_LOCAL_IMAGE" "$BOT_HASH_LABEL")" = "$hash" ]; then
    log "stores image $STORES_LOCAL_IMAGE is up to date"
    return 0
  fi
  rm -rf "$STORES_STAGE_DIR"
  mkdir -p "$STORES_STAGE_DIR"
  cp "$STORES_ENTRYPOINT" "$STORES_STAGE_DIR/"
  log "building stores image $STORES_LOCAL_IMAGE (Postgres and Redis from Debian's packages) on $BOT_LOCAL_BASE_IMAGE"
  build_image "$STORES_LOCAL_IMAGE" "$BOT_LOCAL_BASE_IMAGE" "$hash" "$STORES_DOCKERFILE" "$STORES_STAGE_DIR" ||
    die "building the stores image failed"
}
