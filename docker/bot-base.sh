#!/usr/bin/env bash
# Builds the bot's base image without a container registry: a minimal Debian trixie made with
# debootstrap from a Debian mirror, with Chromium, Node.js, pocketsphinx and its English model, then
# `docker import`ed. Run as root. scripts/lib/docker.sh (ensure_bot_image) calls it with the mirror
# read from this machine's apt sources.
#
#   MIRROR=http://deb.debian.org/debian [SECURITY_MIRROR=http://deb.debian.org/debian-security] \
#   [HASH_LABEL=key=value] docker/bot-base.sh meetbot/bot-base:trixie
set -euo pipefail

TAG="${1:?usage: bot-base.sh IMAGE_TAG}"
MIRROR="${MIRROR:?set MIRROR to a Debian mirror URL}"
SECURITY_MIRROR="${SECURITY_MIRROR:-}"
SUITE=trixie
PACKAGES=(chromium chromium-headless-shell nodejs pocketsphinx pocketsphinx-en-us opus-tools flite ca-certificates)

[ "$(id -u)" -eq 0 ] || { echo "bot-base.sh must run as root (debootstrap, chroot)" >&2; exit 1; }

ROOTFS="$(mktemp -d /var/tmp/meetbot-base.XXXXXX)"
chmod 755 "$ROOTFS" # the image's / (and apt's _apt user must reach its lists)
cleanup() {
  for m in dev/pts dev proc sys; do
    mountpoint -q "$ROOTFS/$m" && umount -l "$ROOTFS/$m"
  done
  rm -rf --one-file-system "$ROOTFS" "$ROOTFS.log"
}
trap cleanup EXIT

# Packages through --include fail (their dependencies need a configured system): install them after.
debootstrap --variant=minbase "$SUITE" "$ROOTFS" "$MIRROR" >"$ROOTFS.log" 2>&1 ||
  { tail -n 30 "$ROOTFS.log" >&2; rm -f "$ROOTFS.log"; exit 1; }
rm -f "$ROOTFS.log"

# Docs, man pages and translations never get installed (copyright files stay, as licences ask).
cat >"$ROOTFS/etc/dpkg/dpkg.cfg.d/01-meetbot-slim" <<'EOF'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/groff/*
path-exclude=/usr/share/lintian/*
path-exclude=/usr/share/linda/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
# Mesa's LLVM-based GL drivers (≈ 190 MB), pulled in through Chromium's libgbm1 dependency: the bot
# runs Chromium with --disable-gpu, which composites in software and never loads them.
path-exclude=/usr/lib/*/libLLVM*.so*
path-exclude=/usr/lib/*/libgallium-*.so
path-exclude=/usr/lib/*/libz3.so*
# Desktop icon themes (GTK's, through Chromium): a bot shows no browser UI to anyone.
path-exclude=/usr/share/icons/*
path-include=/usr/share/icons/*/index.theme
path-include=/usr/share/icons/*/cursor.theme
# Vulkan's validation layer is a debugging aid.
path-exclude=/usr/lib/chromium/libVkLayer_khronos_validation.so
EOF
cat >"$ROOTFS/etc/apt/apt.conf.d/01-meetbot-slim" <<'EOF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
EOF

# Chromium's fixes reach stable through the security archive, so use it when the host has one.
{
  printf 'Types: deb\nURIs: %s\nSuites: %s %s-updates\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
    "$MIRROR" "$SUITE" "$SUITE"
  if [ -n "$SECURITY_MIRROR" ]; then
    printf '\nTypes: deb\nURIs: %s\nSuites: %s-security\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' \
      "$SECURITY_MIRROR" "$SUITE"
  fi
} >"$ROOTFS/etc/apt/sources.list.d/debian.sources"
rm -f "$ROOTFS/etc/apt/sources.list"

cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' >"$ROOTFS/usr/sbin/policy-rc.d" # no services start in the chroot
chmod +x "$ROOTFS/usr/sbin/policy-rc.d"
mount -t proc proc "$ROOTFS/proc"
mount -t sysfs sysfs "$ROOTFS/sys"
mount --bind /dev "$ROOTFS/dev"
mount --bind /dev/pts "$ROOTFS/dev/pts"

chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive \
  LC_ALL=C.UTF-8 HOME=/root bash -euo pipefail -c "
    apt-get update -qq
    apt-get install -y -q --no-install-recommends ${PACKAGES[*]} >/tmp/install.log 2>&1 ||
      { tail -n 40 /tmp/install.log >&2; exit 1; }
    apt-get clean
    node --version
    chromium --version
    command -v pocketsphinx_continuous
    command -v flite
  "

for m in dev/pts dev proc sys; do umount -l "$ROOTFS/$m"; done

# What the bot never uses at run time.
rm -rf "$ROOTFS"/var/lib/apt/lists/* "$ROOTFS"/var/cache/apt/* "$ROOTFS"/var/cache/debconf/*-old \
  "$ROOTFS"/var/log/* "$ROOTFS"/tmp/* "$ROOTFS"/var/tmp/* "$ROOTFS"/root/.cache \
  "$ROOTFS"/usr/share/info/* "$ROOTFS"/usr/share/man/* "$ROOTFS"/usr/share/lintian \
  "$ROOTFS"/usr/sbin/policy-rc.d "$ROOTFS"/etc/resolv.conf
# debootstrap's own packages came before the dpkg excludes above.
find "$ROOTFS/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} +
find "$ROOTFS/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete 2>/dev/null || true
find "$ROOTFS/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
# Chromium's UI strings: English only (it falls back to en-US for any other locale).
find "$ROOTFS/usr/lib/chromium/locales" -name '*.pak' ! -name 'en-US.pak' ! -name 'en-GB.pak' -delete 2>/dev/null || true
: >"$ROOTFS/etc/resolv.conf" # Docker bind-mounts its own

changes=(
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  --change 'ENV LANG=C.UTF-8'
  --change 'CMD ["bash"]'
)
[ -n "${HASH_LABEL:-}" ] && changes+=(--change "LABEL $HASH_LABEL")
previous="$(docker image inspect --format '{{ .Id }}' "$TAG" 2>/dev/null || true)"
tar --numeric-owner --xattrs --acls -C "$ROOTFS" -c . | docker import "${changes[@]}" - "$TAG" >/dev/null
# The image this one replaces, unless a bot image still builds on it.
if [ -n "$previous" ]; then docker image rm "$previous" >/dev/null 2>&1 || true; fi
docker image inspect --format "$TAG: {{ .Size }} bytes" "$TAG"
