#!/usr/bin/env bash
# Install and configure what tcab needs on a Debian host, as root: Podman with
# runc (cgroups here are hybrid, so crun fails), debootstrap to build the run
# images from Debian, and lower default ulimits for containers.
# Idempotent: packages already installed are not fetched again and the
# configuration file is rewritten only when its content differs.
set -euo pipefail

if [ "$(id -u)" -ne 0 ]; then
    echo "install-host.sh: must run as root (it installs packages and writes /etc/containers)" >&2
    exit 2
fi

# chromium: the replay renderer and reference screenshots are checked in a real headless browser.
packages=(podman runc catatonit debootstrap uidmap slirp4netns fuse-overlayfs curl chromium nodejs)
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
    echo "install-host.sh: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
    echo "install-host.sh: packages present (${packages[*]})"
fi

conf=/etc/containers/containers.conf
want='# Written by tcab containers/install-host.sh.
# runc: the cgroups of this kind of host are hybrid, where crun fails.
# Lower ulimits: the defaults inherited from the host are too high for runc here.
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
'
mkdir -p /etc/containers
if [ ! -f "$conf" ] || [ "$(cat "$conf")" != "$(printf '%s' "$want")" ]; then
    if [ -f "$conf" ] && ! grep -q "Written by tcab" "$conf"; then
        cp "$conf" "$conf.before-tcab"
        echo "install-host.sh: kept the previous $conf as $conf.before-tcab"
    fi
    printf '%s' "$want" > "$conf.tmp"
    mv "$conf.tmp" "$conf"
    echo "install-host.sh: wrote $conf"
else
    echo "install-host.sh: $conf up to date"
fi
