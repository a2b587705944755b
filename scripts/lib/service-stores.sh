# The Postgres and Redis that `npm run up` gives the service (after common.sh): both need a credential,
# so a bot (host networking, the machine's loopback in reach) can't connect without its own Redis user,
# and can't log in to the database at all (docs/how-a-bot-runs.md#what-a-bot-may-reach).
#
# - Redis: the one REDIS_URL names when it refuses a client without a password; otherwise a Redis of
#   the service's own on 127.0.0.1:MEETBOT_REDIS_PORT (6381), with a generated password, append-only
#   persistence, maxmemory with noeviction, its data in MEETBOT_DATA_DIR/redis-<port>.
# - Postgres: the server DATABASE_URL names when it refuses a login without a password; otherwise a
#   cluster of the service's own (Debian's pg_createcluster, MEETBOT_POSTGRES_CLUSTER "meetbot", on
#   127.0.0.1:MEETBOT_POSTGRES_PORT 5434) with password authentication only, a `meetbot` role with a
#   generated password owning the `meetbot` database. (The compose stack takes 5433 and 6380.)
# What was generated goes to .env (REDIS_URL, DATABASE_URL, and the two passwords as
# MEETBOT_REDIS_PASSWORD and MEETBOT_POSTGRES_PASSWORD), so later runs reuse it. The machine's own
# Redis and Postgres are left as they are: other programs (this project's tests among them) use them.

MEETBOT_DATA_DIR="${MEETBOT_DATA_DIR:-/var/lib/meetbot}"

url_part() { # URL PART: hostname, port (with the default of the scheme), username, password
  node -e '
    const url = new URL(process.argv[1]);
    const defaults = { "redis:": "6379", "rediss:": "6379", "postgres:": "5432", "postgresql:": "5432" };
    const part = process.argv[2];
    const value = part === "port" ? url.port || defaults[url.protocol] : decodeURIComponent(url[part]);
    console.log(part === "hostname" ? value.replace(/^\[|\]$/g, "") : value);
  ' "$1" "$2"
}

is_loopback() { case "$1" in 127.0.0.1 | localhost | ::1) return 0 ;; *) return 1 ;; esac; }

random_secret() { node -e 'console.log(require("crypto").randomBytes(24).toString("hex"))'; }

# Does the Redis at HOST PORT answer a client that gives no credential?
redis_open_at() { redis-cli -h "$1" -p "$2" ping 2>/dev/null | grep -q PONG; }

ensure_service_redis() {
  command -v redis-cli >/dev/null 2>&1 || apt_install redis-tools
  local url host port password
  url="$(redis_url)"
  host="$(url_part "$url" hostname)"
  port="$(url_part "$url" port)"
  if redis_ping; then
    redis_open_at "$host" "$port" || return 0
    is_loopback "$host" || die "the Redis at $host:$port (REDIS_URL) lets anyone in without a password: give its default user one (requirepass) and put it in REDIS_URL"
  else
    is_loopback "$host" || die "Redis at $host:$port is not reachable (REDIS_URL)"
  fi
  # The service's own, its password kept in .env (REDIS_URL set in the environment wins over .env, so
  # it is not where a later run would find it).
  port="${MEETBOT_REDIS_PORT:-6381}"
  password="${MEETBOT_REDIS_PASSWORD:-}"
  if [ -z "$password" ]; then
    password="$(random_secret)"
    set_env_value MEETBOT_REDIS_PASSWORD "$password"
  fi
  command -v redis-server >/dev/null 2>&1 || apt_install redis-server
  if ! redis-cli -h 127.0.0.1 -p "$port" --no-auth-warning -a "$password" ping 2>/dev/null | grep -q PONG; then
    redis-cli -h 127.0.0.1 -p "$port" ping >/dev/null 2>&1 &&
      die "port $port already has a Redis this service has no password of; set MEETBOT_REDIS_PORT to a free port"
    log "starting the service's Redis on 127.0.0.1:$port (password and append-only file; data in $MEETBOT_DATA_DIR/redis-$port)"
    as_root mkdir -p "$MEETBOT_DATA_DIR/redis-$port"
    as_root chmod 700 "$MEETBOT_DATA_DIR/redis-$port"
    # The password through stdin (a config file read from -), never on the command line.
    printf 'requirepass "%s"\n' "$password" | as_root redis-server - --daemonize yes --bind 127.0.0.1 \
      --port "$port" --dir "$MEETBOT_DATA_DIR/redis-$port" --appendonly yes --appendfsync everysec \
      --maxmemory "${REDIS_MAXMEMORY:-1gb}" --maxmemory-policy noeviction \
      --logfile "$RUN_DIR/redis-$port.log" >/dev/null
    local ready=0
    for _ in $(seq 1 20); do
      redis-cli -h 127.0.0.1 -p "$port" --no-auth-warning -a "$password" ping 2>/dev/null | grep -q PONG && { ready=1; break; }
      sleep 0.5
    done
    [ "$ready" = 1 ] || die "the service's Redis did not start (see $RUN_DIR/redis-$port.log)"
  fi
  set_env_value REDIS_URL "redis://default:${password}@127.0.0.1:${port}"
}

# Does the Postgres at HOST PORT let USER in without a password?
pg_open_at() {
  PGPASSFILE=/dev/null PGPASSWORD='' PGCONNECT_TIMEOUT=5 \
    psql -w "postgresql://$3@$1:$2/postgres" -tAc 'SELECT 1' >/dev/null 2>&1
}

pg_newest_version() { ls /etc/postgresql 2>/dev/null | sort -V | tail -n 1; }

ensure_service_postgres() {
  command -v psql >/dev/null 2>&1 || apt_install postgresql-client
  local url host port user
  url="$(pg_url)"
  host="$(url_part "$url" hostname)"
  port="$(url_part "$url" port)"
  user="$(url_part "$url" username)"
  if pg_can_connect && ! pg_open_at "$host" "$port" postgres && ! pg_open_at "$host" "$port" "${user:-postgres}"; then
    return 0
  fi
  if ! is_loopback "$host"; then
    pg_can_connect || die "Postgres at $host:$port is not reachable (DATABASE_URL)"
    die "the Postgres at $host:$port (DATABASE_URL) lets a login in without a password: require one (pg_hba.conf: scram-sha-256) for the service's connections"
  fi
  # A cluster of the service's own, with password authentication only; its role's password kept in
  # .env (DATABASE_URL set in the environment wins over .env, so it is not where a later run looks).
  local cluster="${MEETBOT_POSTGRES_CLUSTER:-meetbot}" own_port="${MEETBOT_POSTGRES_PORT:-5434}" version password
  [ -n "$(pg_newest_version)" ] || apt_install postgresql
  version="$(pg_newest_version)"
  password="${MEETBOT_POSTGRES_PASSWORD:-}"
  if [ -z "$password" ]; then
    password="$(random_secret)"
    set_env_value MEETBOT_POSTGRES_PASSWORD "$password"
  fi
  if [ ! -d "/etc/postgresql/$version/$cluster" ]; then
    log "creating the service's PostgreSQL $version cluster \"$cluster\" on 127.0.0.1:$own_port (password logins only)"
    as_root pg_createcluster -p "$own_port" "$version" "$cluster" -- --auth-host=scram-sha-256 --auth-local=peer >/dev/null
  fi
  if ! pg_isready -q -h 127.0.0.1 -p "$own_port"; then
    as_root pg_ctlcluster --skip-systemctl-redirect "$version" "$cluster" start 2>/dev/null ||
      as_root pg_ctlcluster "$version" "$cluster" start >/dev/null 2>&1 || true
    for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p "$own_port" && break; sleep 1; done
  fi
  pg_isready -q -h 127.0.0.1 -p "$own_port" || die "the service's Postgres cluster did not start (pg_lsclusters)"
  # The role's password set again each time (it is the one in .env), its database created once; from /,
  # which the postgres user may enter whatever directory this runs in.
  (cd / && as_root su postgres -c "psql -q -p $own_port -v ON_ERROR_STOP=1") >/dev/null <<SQL
SELECT 'CREATE ROLE meetbot LOGIN' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'meetbot')\gexec
ALTER ROLE meetbot PASSWORD '$password';
SELECT 'CREATE DATABASE meetbot OWNER meetbot' WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = 'meetbot')\gexec
SQL
  set_env_value DATABASE_URL "postgres://meetbot:${password}@127.0.0.1:${own_port}/meetbot"
  pg_can_connect || die "cannot connect to the service's Postgres at 127.0.0.1:$own_port"
  pg_open_at 127.0.0.1 "$own_port" postgres && die "the service's Postgres lets postgres in without a password (pg_hba.conf of cluster $cluster)"
  return 0
}
