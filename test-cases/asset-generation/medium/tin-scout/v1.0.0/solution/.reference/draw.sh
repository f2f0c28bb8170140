#!/bin/sh
# The reference implementation of tin-scout: solution/build.py (laid over the
# starter) run through tcab-blend, as a model must. The reference harness runs
# it from the workspace and then removes this folder.
set -eu
tcab-blend
