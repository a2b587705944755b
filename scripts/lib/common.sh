# Shared by scripts/up.sh and scripts/test.sh: make sure what the project needs is installed and running.
# Every function is idempotent: it does nothing when the thing is already there.

ROOT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
RUN_DIR="$ROOT_DIR/.run"
mkdir -p "$RUN_DIR"
# The settings file the scripts read and write (a test points it elsewhere).
ENV_FILE="${MEETBOT_ENV_FILE:-$ROOT_DIR/.env}"

log() { printf '\033[1;34m==>\033[0m %s\n' "$*" >&2; }
die() { printf '\033[1;31merror:\033[0m %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null 2>&1; then sudo "$@"; else die "need root for: $*"; fi
}

APT_UPDATED=0
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  command -v apt-get >/dev/null 2>&1 || die "missing packages (${missing[*]}) and no apt-get to install them"
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    as_root apt-get update -qq >/dev/null
    APT_UPDATED=1
  fi
  log "installing ${missing[*]}"
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

require_node() {
  command -v node >/dev/null 2>&1 || die "Node.js 20 or newer is required (https://nodejs.org)"
  local major
  major="$(node -p 'process.versions.node.split(".")[0]')"
  [ "$major" -ge 20 ] || die "Node.js 20 or newer is required (found $(node --version))"
}

# Installs npm dependencies when node_modules is missing or older than the lock file. The lock file
# lists every platform's optional binaries, so `npm ci` works too (test/integration/packaging keeps it
# so); `npm install` is used here because it keeps an existing node_modules and only adds what changed.
ensure_node_modules() {
  require_node
  local stamp="$ROOT_DIR/node_modules/.meetbot-installed"
  if [ ! -f "$stamp" ] || [ "$ROOT_DIR/package-lock.json" -nt "$stamp" ]; then
    log "installing npm dependencies"
    (cd "$ROOT_DIR" && npm install --no-audit --no-fund --loglevel=error)
    touch "$stamp"
  fi
}

# Loads .env (if any) so DATABASE_URL / REDIS_URL overrides are honoured by these scripts too. As the
# processes do (loadConfigOrExit), a variable already set in the environment wins over its .env line.
load_env() {
  [ -f "$ENV_FILE" ] || return 0
  local line key value
  while IFS= read -r line || [ -n "$line" ]; do
    line="${line%$'\r'}"
    [[ "$line" =~ ^[[:space:]]*(export[[:space:]]+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]] || continue
    key="${BASH_REMATCH[2]}"
    value="${BASH_REMATCH[3]}"
    [ -z "${!key+set}" ] || continue
    if [[ "$value" =~ ^\"(.*)\"$ ]] || [[ "$value" =~ ^\'(.*)\'$ ]]; then value="${BASH_REMATCH[1]}"; fi
    export "$key=$value"
  done <"$ENV_FILE"
}

set_env_value() { # KEY VALUE: add or replace a line in .env
  local key="$1" value="$2" file="$ENV_FILE"
  touch "$file"
  if grep -q "^${key}=" "$file"; then
    sed -i "s|^${key}=.*|${key}=${value}|" "$file"
  else
    printf '%s=%s\n' "$key" "$value" >>"$file"
  fi
  export "$key=$value"
}

pg_url() { printf '%s' "${DATABASE_URL:-postgres://postgres@127.0.0.1:5432/meetbot}"; }

# Can we log in to the server named in DATABASE_URL (its maintenance database)?
pg_can_connect() {
  local url
  url="$(pg_url | sed -E 's|/[^/?]*(\?.*)?$|/postgres\1|')"
  psql "$url" -tAc 'SELECT 1' >/dev/null 2>&1
}

ensure_postgres() {
  command -v psql >/dev/null 2>&1 || apt_install postgresql-client
  pg_can_connect && return 0
  local host port
  host="$(node -e 'console.log(new URL(process.argv[1]).hostname)' "$(pg_url)")"
  port="$(node -e 'console.log(new URL(process.argv[1]).port || 5432)' "$(pg_url)")"
  case "$host" in 127.0.0.1|localhost|::1) ;; *) die "Postgres at $host:$port is not reachable (DATABASE_URL)";; esac
  if ! pg_isready -q -h 127.0.0.1 -p "$port" 2>/dev/null; then
    if ! ls /etc/postgresql/*/main >/dev/null 2>&1; then apt_install postgresql; fi
    local version
    version="$(ls /etc/postgresql | sort -V | tail -n 1)"
    log "starting local PostgreSQL $version"
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" main start || as_root pg_ctlcluster "$version" main start
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p "$port" && break; sleep 1; done
  fi
  pg_can_connect && return 0
  # A fresh Debian cluster wants a password on TCP: give the postgres role one and remember it in .env.
  log "configuring a password for the local postgres role (saved in .env)"
  local password
  password="$(node -e 'console.log(require("crypto").randomBytes(12).toString("hex"))')"
  as_root su postgres -c "psql -q -c \"ALTER ROLE postgres PASSWORD '$password'\"" >/dev/null
  set_env_value DATABASE_URL "postgres://postgres:${password}@127.0.0.1:${port}/meetbot"
  pg_can_connect || die "cannot connect to Postgres at $(pg_url)"
}

redis_url() { printf '%s' "${REDIS_URL:-redis://127.0.0.1:6379}"; }

redis_ping() { redis-cli -u "$(redis_url)" ping 2>/dev/null | grep -q PONG; }

ensure_redis() {
  command -v redis-cli >/dev/null 2>&1 || apt_install redis-tools
  redis_ping && return 0
  local host port
  host="$(node -e 'console.log(new URL(process.argv[1]).hostname)' "$(redis_url)")"
  port="$(node -e 'console.log(new URL(process.argv[1]).port || 6379)' "$(redis_url)")"
  case "$host" in 127.0.0.1|localhost|::1) ;; *) die "Redis at $host:$port is not reachable (REDIS_URL)";; esac
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  log "starting local Redis on 127.0.0.1:$port"
  as_root mkdir -p /var/lib/redis
  as_root redis-server --daemonize yes --bind 127.0.0.1 --port "$port" --save "" --appendonly no --dir /var/lib/redis \
    --logfile "$RUN_DIR/redis.log" >/dev/null
  for _ in $(seq 1 20); do redis_ping && return 0; sleep 0.5; done
  die "Redis did not start (see $RUN_DIR/redis.log)"
}

# What the bot and its tests need on the host: Debian's Chromium, speech synthesis and recognition,
# and the recorder's Opus encoder and decoder.
ensure_bot_host_packages() {
  apt_install chromium chromium-headless-shell flite pocketsphinx pocketsphinx-en-us sox opus-tools
}

# What `npm run demo` needs on the host beyond the stack: the simulator speaks its scripted lines
# with Debian's flite (the bot and its recognizer run in the bot image).
ensure_demo_packages() {
  apt_install flite
}

# What the tests need beyond the bots' packages: Debian's Prometheus, which a test runs to scrape
# the API and a worker (only the binary; its service is not started), docker-compose, which
# test/e2e/deploy/compose.test.ts drives (docker/compose.yml), and real recorded speech with
# transcripts (simulator/recordings.ts) that e2e meetings play and bench/wer.ts measures.
ensure_test_tools() {
  apt_install prometheus pocketsphinx-testdata asterisk-core-sounds-en asterisk-core-sounds-en-wav
  command -v docker-compose >/dev/null 2>&1 || apt_install docker-compose
}

ensure_admin_key() {
  if [ -z "${ADMIN_API_KEY:-}" ]; then
    set_env_value ADMIN_API_KEY "$(node -e 'console.log(require("crypto").randomBytes(24).toString("base64url"))')"
    log "generated an admin key (ADMIN_API_KEY in .env)"
  fi
}

stop_pidfile() { # NAME: stop a process this project started earlier
  local pidfile="$RUN_DIR/$1.pid"
  [ -f "$pidfile" ] || return 0
  local pid
  pid="$(cat "$pidfile")"
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$pidfile"
}

start_background() { # NAME COMMAND...: start a process detached, logging to .run/NAME.log
  local name="$1"
  shift
  stop_pidfile "$name"
  # exec, so the recorded pid is the program's own; no inherited stdout, so callers' pipes can close.
  (cd "$ROOT_DIR" && exec nohup "$@" >"$RUN_DIR/$name.log" 2>&1 </dev/null) &
  echo $! >"$RUN_DIR/$name.pid"
}
