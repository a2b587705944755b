#!/bin/sh
# Entry point of docker/stores.Dockerfile: starts Postgres or Redis from Debian's packages the way
# compose starts the public images, as their own unprivileged users.
#   postgres [options]      makes a cluster in PGDATA on first start (superuser `postgres` with
#                           POSTGRES_PASSWORD, scram-sha-256 over TCP, database POSTGRES_DB), then runs it
#   redis-server [options]  runs Redis with its data in /data
#   anything else           runs as given
set -eu

case "${1:-}" in
postgres)
  shift
  bin="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)"
  : "${PGDATA:=/var/lib/postgresql/data}"
  mkdir -p "$PGDATA" /var/run/postgresql
  chown postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  if [ ! -s "$PGDATA/PG_VERSION" ]; then
    if [ -z "${POSTGRES_PASSWORD:-}" ]; then
      echo "stores-entrypoint: set POSTGRES_PASSWORD for a new database cluster" >&2
      exit 1
    fi
    pwfile="$(mktemp)"
    printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
    chown postgres "$pwfile"
    runuser -u postgres -- "$bin/initdb" -D "$PGDATA" --username=postgres --pwfile="$pwfile" \
      --encoding=UTF8 --locale=C.UTF-8 --auth-local=trust --auth-host=scram-sha-256 >/dev/null
    rm -f "$pwfile"
    # Clients in other containers (or on other hosts, when listen_addresses allows them) use a password.
    printf 'host all all 0.0.0.0/0 scram-sha-256\nhost all all ::/0 scram-sha-256\n' >>"$PGDATA/pg_hba.conf"
    if [ -n "${POSTGRES_DB:-}" ] && [ "$POSTGRES_DB" != postgres ]; then
      echo "CREATE DATABASE \"$POSTGRES_DB\"" |
        runuser -u postgres -- "$bin/postgres" --single -D "$PGDATA" postgres >/dev/null
    fi
    echo "stores-entrypoint: created the database cluster in $PGDATA" >&2
  fi
  # listen_addresses '*' as the public image does; a command's own -c listen_addresses=... wins.
  exec setpriv --reuid=postgres --regid=postgres --init-groups -- "$bin/postgres" -D "$PGDATA" -c listen_addresses='*' "$@"
  ;;
redis-server)
  shift
  mkdir -p /data
  chown redis:redis /data
  cd /data
  exec setpriv --reuid=redis --regid=redis --init-groups -- redis-server "$@"
  ;;
*)
  exec "$@"
  ;;
esac
