// Variant settings: the classic 5×5 board with hard edges.
window.LIGHTS_OUT = { size: 5, wrap: false };
