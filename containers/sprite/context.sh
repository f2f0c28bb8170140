#!/bin/sh
# Gather what this image carries from the repository into the build context
# CTX (build-images.sh runs this when an image folder has one): the drawing
# library tcab/draw (standard library only) under stage/, without bytecode.
# The digest of CTX is the image's label, so a change to tcab/draw rebuilds it.
set -eu
CTX=$1
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$CTX/stage/tcab"
cp -r "$REPO/tcab/draw" "$CTX/stage/tcab/draw"
find "$CTX/stage" -name __pycache__ -prune -exec rm -rf {} +
