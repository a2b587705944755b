#!/bin/sh
# Starts a PulseAudio daemon with one null sink (it renders every block it is owed, late or not),
# waits for its socket, then runs the bot as the image's own entrypoint does.
set -eu
mkdir -p /tmp/pulse
pulseaudio -n --daemonize=no --exit-idle-time=-1 --use-pid-file=no --system=false \
  --disable-shm=yes --log-target=stderr --log-level=error \
  -L "module-null-sink sink_name=bot rate=48000" \
  -L "module-native-protocol-unix socket=/tmp/pulse/native auth-anonymous=1" \
  -L "module-always-sink" >/tmp/pulse/log 2>&1 &
i=0
while [ ! -S /tmp/pulse/native ] && [ "$i" -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
export PULSE_SERVER=unix:/tmp/pulse/native
exec node --max-semi-space-size=1 dist/bot/main.js "$@"
