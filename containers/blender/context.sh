#!/bin/sh
# Gather what this image carries from the repository into the build context
# CTX: tcab/blender (the runner, the export helper, the glb reader and the
# preview renderer) and tcab/draw (its PNG encoder; standard library only),
# under stage/, without bytecode.
# The digest of CTX is the image's label, so a change to them rebuilds it.
set -eu
CTX=$1
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$CTX/stage/tcab"
cp -r "$REPO/tcab/blender" "$CTX/stage/tcab/blender"
cp -r "$REPO/tcab/draw" "$CTX/stage/tcab/draw"
find "$CTX/stage" -name __pycache__ -prune -exec rm -rf {} +
