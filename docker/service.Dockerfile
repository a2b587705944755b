# The service image: the compiled API, worker, migration and keys CLI with their production packages,
# one image for every service (the command picks which): see docker/compose.yml.
#
# Built by scripts/compose-up.sh (ensure_service_image in scripts/lib/docker.sh) from a staged
# context, docker/.build/service/app: dist/{api,worker,shared,scripts,migrations,web}, package.json and
# `npm install --omit=dev` node_modules made on the build machine, so nothing is fetched during the build.
#   - default BASE_IMAGE: a public Node 20 image, for machines with a registry;
#   - BASE_IMAGE=meetbot/bot-base:trixie: the local offline base the bot image uses (it has Node 20).
ARG BASE_IMAGE=node:20-bookworm-slim
FROM ${BASE_IMAGE}

USER root
RUN set -eu; \
    node --version; \
    getent group meetbot >/dev/null || groupadd --gid 10002 meetbot; \
    id -u meetbot >/dev/null 2>&1 || useradd --no-log-init --uid 10002 --gid meetbot --home-dir /home/meetbot --create-home --shell /usr/sbin/nologin meetbot; \
    mkdir -p /var/lib/meetbot/recordings; \
    chown -R meetbot:meetbot /var/lib/meetbot

WORKDIR /app
COPY --chown=root:root . /app/

# Recordings in local storage live under /var/lib/meetbot/recordings (compose mounts one volume there
# in the API and worker containers, so both see the same files).
ENV NODE_ENV=production \
    HOME=/home/meetbot \
    API_HOST=0.0.0.0 \
    RECORDING_DIR=/var/lib/meetbot/recordings
USER meetbot:meetbot
# api: node dist/api/main.js · worker: node dist/scripts/container-worker.js · migrate: node
# dist/scripts/migrate.js · keys: node dist/scripts/keys.js create --email ...
CMD ["node", "dist/api/main.js"]
