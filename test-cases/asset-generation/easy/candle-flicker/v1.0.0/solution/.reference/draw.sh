#!/bin/sh
# The reference implementation of candle-flicker: the candle drawn with
# `draw-sheet`, one operation at a time, from the seeded workspace (the canvas
# and the frames come from the seeded .tcab/draw.json; nothing here restates
# them). The candle is a layer every frame shares; the flame is a layer of its
# own whose place and height are keyframed per frame; each frame adds its own
# spark. The reference harness runs it from the workspace and then removes
# this folder.
set -eu

OUTLINE='#1c1820'
IRON='#3a3a44'
WAX='#f2e6c8'
WAX_SHADE='#c9b98f'
WICK='#2b2118'
RIM='#ff8c1a'
FLAME='#ffd23f'
CORE='#fff6d0'

# The candle and its holder: one layer, the same in every frame.
draw-sheet register-layer --name candle --x 2 --y 5 --width 12 --height 11
draw-sheet set-pixel --layer candle --x 5 --y 0 --color "$WICK"
draw-sheet fill-rect --layer candle --x 3 --y 1 --width 6 --height 7 --color "$OUTLINE"
draw-sheet fill-rect --layer candle --x 4 --y 2 --width 4 --height 6 --color "$WAX"
draw-sheet fill-rect --layer candle --x 7 --y 2 --width 1 --height 6 --color "$WAX_SHADE"
draw-sheet fill-rect --layer candle --x 0 --y 7 --width 12 --height 3 --color "$OUTLINE"
draw-sheet fill-rect --layer candle --x 1 --y 8 --width 10 --height 1 --color "$IRON"
draw-sheet fill-rect --layer candle --x 3 --y 10 --width 6 --height 1 --color "$OUTLINE"
draw-sheet fill-rect --layer candle --x 4 --y 9 --width 4 --height 1 --color "$IRON"

# The flame: a rim, a body and a pale core, drawn once on its own layer.
draw-sheet register-layer --name flame --x 5 --y 0 --width 5 --height 5 --z 1
draw-sheet set-pixel --layer flame --x 2 --y 0 --color "$RIM"
draw-sheet fill-rect --layer flame --x 1 --y 1 --width 3 --height 3 --color "$RIM"
draw-sheet fill-rect --layer flame --x 0 --y 3 --width 5 --height 1 --color "$RIM"
draw-sheet set-pixel --layer flame --x 2 --y 4 --color "$RIM"
draw-sheet fill-rect --layer flame --x 2 --y 1 --width 1 --height 3 --color "$FLAME"
draw-sheet fill-rect --layer flame --x 1 --y 3 --width 3 --height 1 --color "$FLAME"
draw-sheet set-pixel --layer flame --x 2 --y 3 --color "$CORE"

# The flicker: the flame sways left and right and stretches, looping.
draw-sheet animate-layer --layer flame --property x --frame 0 --value 5 --interp linear
draw-sheet animate-layer --layer flame --property x --frame 1 --value 6 --interp linear
draw-sheet animate-layer --layer flame --property x --frame 2 --value 5 --interp linear
draw-sheet animate-layer --layer flame --property x --frame 3 --value 4 --interp linear
draw-sheet animate-layer --layer flame --property scale-y --frame 0 --value 100 --interp linear
draw-sheet animate-layer --layer flame --property scale-y --frame 1 --value 120 --interp linear
draw-sheet animate-layer --layer flame --property scale-y --frame 2 --value 80 --interp linear
draw-sheet animate-layer --layer flame --property scale-y --frame 3 --value 110 --interp linear

# A spark of each frame's own, rising as the loop goes on.
draw-sheet set-pixel --frame 1 --x 12 --y 2 --color "$FLAME"
draw-sheet set-pixel --frame 2 --x 11 --y 1 --color "$RIM"
draw-sheet set-pixel --frame 3 --x 3 --y 0 --color "$RIM"
