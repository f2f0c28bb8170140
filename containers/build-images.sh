#!/usr/bin/env bash
# Build tcab's run images locally from Debian, tagged with their canonical
# registry names so that "pull only when missing" finds them:
#   1. debootstrap a bookworm minbase rootfs and `podman import` it;
#   2. `podman build` each image in IMAGES (a folder with a Containerfile)
#      on top of its parent.
# Each image carries the label org.tcab.definition-digest: the sha256 of its
# folder plus its parent's digest. An image whose label already matches is
# skipped, so a second run is fast. FORCE=1 rebuilds everything.
set -euo pipefail
SELF="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")"
cd "$(dirname "$SELF")"

REGISTRY="${TCAB_CONTAINER_REGISTRY:-ghcr.io/theclockwyrks}"
TAG="${TCAB_CONTAINER_TAG:-latest}"
SUITE=bookworm
MIRROR="${TCAB_DEBIAN_MIRROR:-http://deb.debian.org/debian}"
BASE=localhost/tcab/debian-${SUITE}-minbase:latest
LABEL=org.tcab.definition-digest
# name:parent ; parent "base" is the debootstrap image.
IMAGES=("base-wasm:base" "adversarial:base-wasm" "performance:adversarial" "sprite:base-wasm" "sprite-sheet:base-wasm"
        "voxel:base-wasm" "voxel-animation:voxel" "blender-base:base-wasm" "blender:blender-base")

digest_of() {  # sha256 over every file of the folders/strings given
    { for item in "$@"; do
        if [ -d "$item" ]; then
            (cd "$item" && find . -type f | LC_ALL=C sort | xargs -r sha256sum)
        else
            printf '%s\n' "$item"
        fi
      done; } | sha256sum | cut -d' ' -f1
}

current_label() {
    podman image inspect --format "{{index .Labels \"$LABEL\"}}" "$1" 2>/dev/null || true
}

# 1. The Debian base.
base_digest=$(digest_of "debootstrap --variant=minbase $SUITE $MIRROR" "$(sed -n '/^# 1\./,/^# 2\./p' "$SELF")")
if [ "$(current_label "$BASE")" = "$base_digest" ] && [ -z "${FORCE:-}" ]; then
    echo "build-images.sh: $BASE up to date"
else
    echo "build-images.sh: debootstrap $SUITE minbase -> $BASE"
    rootfs=$(mktemp -d /var/tmp/tcab-rootfs.XXXXXX)
    trap 'rm -rf "$rootfs"' EXIT
    debootstrap --variant=minbase "$SUITE" "$rootfs" "$MIRROR" >"$rootfs.log" 2>&1 || {
        tail -n 30 "$rootfs.log" >&2; exit 1; }
    rm -f "$rootfs.log"
    # Security and update suites so that layers get current packages.
    printf 'deb %s %s main\ndeb %s %s-updates main\ndeb http://deb.debian.org/debian-security %s-security main\n' \
        "$MIRROR" "$SUITE" "$MIRROR" "$SUITE" "$SUITE" > "$rootfs/etc/apt/sources.list"
    rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*
    tar -C "$rootfs" -c . | podman import \
        --change "LABEL $LABEL=$base_digest" --change "CMD [\"/bin/bash\"]" - "$BASE" >/dev/null
    rm -rf "$rootfs"; trap - EXIT
fi
# 2. The layers.
declare -A digests=([base]="$base_digest")
declare -A refs=([base]="$BASE")
for entry in "${IMAGES[@]}"; do
    name=${entry%%:*}; parent=${entry#*:}
    ref="$REGISTRY/test-cabinet-$name:$TAG"
    # A private build context: the image's folder plus the host's extra CA
    # certificates (an egress proxy may re-sign HTTPS; the runs need it too).
    ctx=$(mktemp -d /var/tmp/tcab-ctx.XXXXXX)
    cp -r "$name/." "$ctx/"
    # An image may gather more of the repository into its context (performance:
    # the scorer's code, training scenarios, reference engines; sprite, sprite-sheet: tcab/draw).
    if [ -x "$name/context.sh" ]; then
        "$name/context.sh" "$ctx" || { echo "build-images.sh: $name/context.sh failed" >&2; rm -rf "$ctx"; exit 1; }
    fi
    mkdir -p "$ctx/host-ca" && touch "$ctx/host-ca/.keep"
    find /usr/local/share/ca-certificates -name '*.crt' -type f -exec cp {} "$ctx/host-ca/" \; 2>/dev/null || true
    d=$(digest_of "$ctx" "parent=${digests[$parent]}")
    digests[$name]=$d; refs[$name]=$ref
    if [ "$(current_label "$ref")" = "$d" ] && [ -z "${FORCE:-}" ]; then
        echo "build-images.sh: $ref up to date"
        rm -rf "$ctx"
        continue
    fi
    echo "build-images.sh: building $ref"
    start=$(date +%s)
    if ! podman build --pull=never --layers=false --label "$LABEL=$d" \
        --build-arg "BASE=${refs[$parent]}" -t "$ref" -f "$ctx/Containerfile" "$ctx" >"$ctx.log" 2>&1; then
        tail -n 40 "$ctx.log" >&2
        echo "build-images.sh: building $ref failed (full log: $ctx.log)" >&2
        rm -rf "$ctx"
        exit 1
    fi
    rm -rf "$ctx" "$ctx.log"
    echo "build-images.sh: built $ref in $(( $(date +%s) - start )) s"
done
podman image prune -f >/dev/null 2>&1 || true
