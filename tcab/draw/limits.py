"""Every bound of the drawing library, in one place.

The tool, the validator's regeneration and the manifest validation read
these same names, so a canvas the manifest accepts is one the tool can draw
and a log the tool wrote is one regeneration replays.
"""

#: Largest canvas side, in pixels (a sprite or one sheet frame).
MAX_SIDE = 4096
#: Largest canvas area (one frame), in pixels: 64 MiB of RGBA.
MAX_PIXELS = 4096 * 4096
#: Most frames a sheet declares, and the largest frame index.
MAX_FRAMES = 256
MAX_FRAME_INDEX = 9999
#: Largest sheet area (frames x width x height), in pixels.
MAX_SHEET_PIXELS = 1 << 26
#: Most operations one log holds (a frame's log, or the layers log).
MAX_OPS = 100_000
#: Largest log file, and largest line of one (an operation is ~100 bytes).
MAX_LOG_BYTES = 32 << 20
MAX_LINE_BYTES = 4096
#: Deepest JSON nesting an operation may have (brackets on one line).
MAX_NESTING = 8
#: Most layers alive at once, and their total area in pixels.
MAX_LAYERS = 128
MAX_LAYER_PIXELS = 1 << 25
#: Most keyframes alive at once, over every layer and property.
MAX_KEYFRAMES = 4096
#: Largest absolute integer a log or a flag may carry (coordinates are clipped, not refused).
MAX_INT = (1 << 63) - 1
#: Layer scale, percent, either sign (0 draws nothing; negative flips).
MAX_SCALE = 10_000
#: The drawing work one regeneration may do, summed over every operation and
#: frame: one unit per Python step (a span; two per transformed pixel) and one
#: per 256 pixels copied; ~2 us a unit, so a hostile log stops within ~10 s.
#: An honest 10^4-op 256x256 sprite uses a few hundred thousand.
MAX_WORK = 5_000_000
#: Largest config file, and the longest path template or live URL/token in it.
MAX_CONFIG_BYTES = 64 << 10
MAX_TEMPLATE_CHARS = 256
MAX_LIVE_CHARS = 512
#: Largest PNG the library decodes (a model's preview), in bytes and chunks.
MAX_PNG_BYTES = 96 << 20
MAX_PNG_CHUNKS = 4096
