#!/bin/sh
# The reference implementation of valve-wheel: the valve sculpted with
# `voxel`, one operation at a time, from the seeded workspace (the volume
# comes from the seeded .tcab/voxel.json). The reference harness runs it from
# the workspace and then removes this folder.
set -eu

IRON='#3a3836'
BRASS='#c8a24a'
DARK='#8a6d2e'

# the flange collar and the pipe stub
voxel fill-cylinder --cx 8 --cy 0 --cz 8 --radius 4 --length 2 --axis y --color "$IRON"
voxel fill-cylinder --cx 8 --cy 2 --cz 8 --radius 2 --length 8 --axis y --color "$IRON"
# the wheel: a brass disc hollowed to a ring, a shadowed rim below it
voxel fill-cylinder --cx 8 --cy 10 --cz 8 --radius 6 --length 2 --axis y --color "$DARK"
voxel fill-cylinder --cx 8 --cy 11 --cz 8 --radius 6 --length 1 --axis y --color "$BRASS"
voxel clear-box --x0 4 --y0 10 --z0 4 --x1 12 --y1 11 --z1 12
# spokes along x and z, and the hub
voxel fill-box --x0 2 --y0 11 --z0 8 --x1 14 --y1 11 --z1 8 --color "$BRASS"
voxel fill-box --x0 8 --y0 11 --z0 2 --x1 8 --y1 11 --z1 14 --color "$BRASS"
voxel fill-box --x0 7 --y0 10 --z0 7 --x1 9 --y1 12 --z1 9 --color "$DARK"
voxel render
