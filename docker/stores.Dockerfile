# Postgres and Redis from Debian's packages, one image for both (the command picks which), for
# machines that can't pull the public `postgres` and `redis` images: docker/compose.yml runs it as
# POSTGRES_IMAGE and REDIS_IMAGE, which scripts/compose-up.sh sets to this image when it builds on
# the local offline base (ensure_stores_image in scripts/lib/docker.sh). It takes the commands and
# settings compose gives the public images (docker/stores-entrypoint.sh):
#   postgres [server options]      POSTGRES_PASSWORD, POSTGRES_DB, PGDATA, PGPORT
#   redis-server [server options]  data in /data
ARG BASE_IMAGE=debian:trixie-slim
FROM ${BASE_IMAGE}

USER root
# No cluster from the package (the entrypoint makes one in PGDATA) and no services started while installing.
RUN set -eu; \
    mkdir -p /etc/postgresql-common/createcluster.d; \
    echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.d/00-meetbot-no-main.conf; \
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d; \
    chmod +x /usr/sbin/policy-rc.d; \
    apt-get update; \
    DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql redis-server; \
    apt-get clean; \
    rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log /usr/sbin/policy-rc.d; \
    ls -d /usr/lib/postgresql/*/bin/postgres; \
    redis-server --version; \
    mkdir -p /var/lib/postgresql/data /data /var/run/postgresql; \
    chown postgres:postgres /var/lib/postgresql/data /var/run/postgresql; \
    chown redis:redis /data

COPY stores-entrypoint.sh /usr/local/bin/stores-entrypoint.sh
ENV PGDATA=/var/lib/postgresql/data \
    LANG=C.UTF-8
WORKDIR /data
ENTRYPOINT ["/usr/local/bin/stores-entrypoint.sh"]
CMD ["postgres"]
