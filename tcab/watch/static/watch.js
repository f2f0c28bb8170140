// The watch page: polls /state and shows the newest image of each frame.
// Everything shown from a run is set as text or as an image from this page's
// own server; nothing is ever parsed as markup.
"use strict";
const grid = document.getElementById("frames");
const counts = document.getElementById("counts");
const shown = new Map();  // "run/frame" -> {fig, img, cap, seq}

function caption(f) {
  const where = f.frame === null ? "sprite" : "frame " + f.frame;
  return where + " · " + f.op + " · op " + f.count + " · " + f.width + "×" + f.height;
}

function place(f) {
  const key = f.run + "/" + f.frame;
  let slot = shown.get(key);
  if (!slot) {
    const fig = document.createElement("figure");
    const img = document.createElement("img");
    const cap = document.createElement("figcaption");
    img.alt = key;
    fig.append(img, cap);
    grid.append(fig);
    slot = {fig, img, cap, seq: 0};
    shown.set(key, slot);
  }
  if (slot.seq !== f.seq) {
    slot.seq = f.seq;
    slot.img.src = "/frames/" + f.seq + ".png";
    slot.cap.textContent = caption(f);
    slot.fig.dataset.seq = String(f.seq);
    if (f.mesh) slot.fig.dataset.mesh = "/meshes/" + f.seq + ".glb";  // turn.js turns it
  }
}

async function poll() {
  try {
    const got = await fetch("/state", {cache: "no-store"});
    if (got.ok) {
      const state = await got.json();
      state.frames.forEach(place);
      const dropped = Object.entries(state.dropped).map(([k, v]) => k + " " + v).join(", ");
      counts.textContent = state.accepted + " frames received" + (dropped ? "; dropped: " + dropped : "")
        + (state.runs.length ? "; runs: " + state.runs.join(", ") : "");
    }
  } catch (e) {
    counts.textContent = "the watch has ended";
  }
  setTimeout(poll, 250);
}
poll();
