#!/bin/sh
# The reference implementation of beacon-lamp: two parts sculpted and rigged
# with `voxel-anim`, one operation at a time, from the seeded workspace (the
# volume comes from the seeded .tcab/voxel.json, so the same script serves
# every variant). The reference harness runs it and then removes this folder.
set -eu

IRON='#3a3836'
BRASS='#c8a24a'
LENS='#ffd27a'
TOP=$(sed -n 's/.*"height": *\([0-9]*\).*/\1/p' .tcab/voxel.json)
POST=$((TOP * 3 / 4))

voxel-anim define-part --name post
voxel-anim define-part --name head --parent post
voxel-anim set-pivot --part head --x 8 --y "$POST" --z 8
voxel-anim fill-box --part post --x0 5 --y0 0 --z0 5 --x1 11 --y1 1 --z1 11 --color "$IRON"
voxel-anim fill-box --part post --x0 7 --y0 2 --z0 7 --x1 9 --y1 $((POST - 1)) --z1 9 --color "$IRON"
voxel-anim fill-box --part head --x0 5 --y0 "$POST" --z0 5 --x1 11 --y1 $((POST + 4)) --z1 11 --color "$BRASS"
voxel-anim fill-box --part head --x0 6 --y0 $((POST + 1)) --z0 11 --x1 10 --y1 $((POST + 3)) --z1 12 --color "$LENS"
voxel-anim define-joint --name turn --part head --kind rotation --axis y --min -7 --max 7 --drive auto
voxel-anim define-animation --name spin --period-ms 2400 --loop true --auto-play true
voxel-anim add-keyframe --animation spin --joint turn --t-ms 0 --value 0
voxel-anim add-keyframe --animation spin --joint turn --t-ms 2400 --value 6.2832
voxel-anim render
