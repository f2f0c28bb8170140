#!/bin/sh
# The reference implementation of ember-gem: the gem drawn with `draw`, one
# operation at a time, from the seeded workspace (the canvas comes from the
# seeded .tcab/draw.json; nothing here restates it). The reference harness
# runs it from the workspace and then removes this folder.
set -eu

OUTLINE='#2a0d0d'
BODY='#c8321e'
SHADOW='#8a1c12'
LIGHT='#f0643c'
HIGHLIGHT='#ffd9c2'

# The silhouette: a table (rows 3-6) widening to the girdle, then a pavilion
# narrowing to a point at row 14, filled in the body colour.
draw fill-rect --x 5 --y 2 --width 6 --height 1 --color "$OUTLINE"
draw fill-rect --x 4 --y 3 --width 8 --height 1 --color "$OUTLINE"
draw fill-rect --x 3 --y 4 --width 10 --height 3 --color "$OUTLINE"
draw line --x0 3 --y0 7 --x1 8 --y1 13 --color "$OUTLINE"
draw line --x0 12 --y0 7 --x1 7 --y1 13 --color "$OUTLINE"
draw set-pixel --x 7 --y 14 --color "$OUTLINE"
draw set-pixel --x 8 --y 14 --color "$OUTLINE"
draw fill-rect --x 6 --y 3 --width 4 --height 1 --color "$LIGHT"
draw fill-rect --x 4 --y 4 --width 8 --height 3 --color "$BODY"
draw flood-fill --x 7 --y 9 --color "$BODY"

# Facets: the left lit, the right in shadow, a table edge across the girdle.
draw fill-rect --x 4 --y 4 --width 2 --height 3 --color "$LIGHT"
draw fill-rect --x 10 --y 4 --width 2 --height 3 --color "$SHADOW"
draw line --x0 4 --y0 7 --x1 7 --y1 11 --color "$LIGHT"
draw line --x0 11 --y0 7 --x1 8 --y1 11 --color "$SHADOW"
draw fill-rect --x 4 --y 7 --width 8 --height 1 --color "$SHADOW"

# The highlight, top-left of the table.
draw set-pixel --x 6 --y 4 --color "$HIGHLIGHT"
