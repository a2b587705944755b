# The bot container: Node.js, Debian's Chromium, full and headless-only (driven by playwright-core), pocketsphinx with its
# English model, opus-tools (the recorder's encoder) and flite (the bot's voice for speak requests), running `node dist/bot/main.js` as an unprivileged user.
#
# Build it with scripts/build-bot-image.sh: it stages the compiled bot with only the packages it
# imports (docker/stage-bot.mjs → docker/.build/bot/app) and picks the base:
#   - default BASE_IMAGE: a public Node 20 image; the packages below come from its Debian apt sources;
#   - BASE_IMAGE=meetbot/bot-base:trixie (the default of the script): built offline by
#     docker/bot-base.sh with everything already installed, so nothing is fetched here.
ARG BASE_IMAGE=node:20-bookworm-slim
FROM ${BASE_IMAGE}

USER root
# Install only what the base lacks, and clean up in the same layer.
RUN set -eu; \
    missing=""; \
    for pkg in chromium chromium-headless-shell pocketsphinx pocketsphinx-en-us opus-tools flite ca-certificates; do \
      dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q ' installed$' || missing="$missing $pkg"; \
    done; \
    command -v node >/dev/null 2>&1 || missing="$missing nodejs"; \
    if [ -n "$missing" ]; then \
      apt-get update; \
      DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing; \
      apt-get clean; \
      rm -rf /var/lib/apt/lists/* /var/cache/apt/* /var/log/apt /var/log/dpkg.log \
        /usr/share/man/* /usr/share/info/*; \
      find /usr/share/doc -mindepth 1 ! -name copyright ! -type d -delete; \
      find /usr/lib/chromium/locales -name '*.pak' ! -name 'en-US.pak' ! -name 'en-GB.pak' -delete; \
    fi; \
    node --version; \
    chromium --version; \
    /usr/lib/chromium/chromium-headless-shell --version; \
    command -v pocketsphinx_continuous; \
    command -v opusenc; \
    command -v flite; \
    test -d /usr/share/pocketsphinx/model/en-us; \
    groupadd --gid 10001 bot; \
    useradd --no-log-init --uid 10001 --gid bot --home-dir /home/bot --create-home --shell /usr/sbin/nologin bot

WORKDIR /app
COPY docker/.build/bot/app/ /app/
# The recognizer's dictionary cut to its language model's words (bot/engines/embedded/lm-dictionary.ts).
RUN node dist/bot/engines/embedded/write-lm-dictionary.js

ENV NODE_ENV=production \
    HOME=/home/bot
USER bot:bot
# A 1 MiB young generation (16 MiB by default): the bot allocates little and often (audio chunks),
# and each semi-space MiB is resident memory in every bot.
ENTRYPOINT ["node", "--max-semi-space-size=1", "dist/bot/main.js"]
