#!/bin/sh
# The sprite-sheet image carries what the sprite image carries (tcab/draw);
# one script gathers it for both.
exec "$(dirname "$0")/../sprite/context.sh" "$@"
