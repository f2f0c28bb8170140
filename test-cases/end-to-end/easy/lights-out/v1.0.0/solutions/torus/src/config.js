// Variant settings: a 6×6 board whose edges wrap around.
window.LIGHTS_OUT = { size: 6, wrap: true };
