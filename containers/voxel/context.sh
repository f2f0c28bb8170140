#!/bin/sh
# Gather what this image carries from the repository into the build context
# CTX (build-images.sh runs this when an image folder has one): the voxel
# library tcab/voxel and the glTF writer tcab/gltf under stage/, without
# bytecode. The digest of CTX is the image's label, so a change to either
# rebuilds it (and test-cabinet-voxel-animation, built on top of it).
set -eu
CTX=$1
REPO=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$CTX/stage/tcab"
cp -r "$REPO/tcab/voxel" "$CTX/stage/tcab/voxel"
cp -r "$REPO/tcab/gltf" "$CTX/stage/tcab/gltf"
find "$CTX/stage" -name __pycache__ -prune -exec rm -rf {} +
