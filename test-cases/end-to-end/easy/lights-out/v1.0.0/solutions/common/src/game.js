// Lights Out: pressing a light toggles it and its orthogonal neighbours;
// switch every light off to win. Settings come from config.js.
"use strict";
(function () {
  const { size, wrap } = window.LIGHTS_OUT;
  const board = document.getElementById("board");
  const status = document.getElementById("status");

  let dealt = [];      // the board as dealt, for Restart
  let lights = [];     // current state, row-major booleans
  let moves = 0;
  let solved = false;
  let focus = 0;

  // mulberry32: a small deterministic PRNG, so ?seed=N always deals the same board.
  function rng(seed) {
    let a = seed >>> 0;
    return function () {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function neighbours(r, c) {
    const out = [[r, c]];
    for (const [dr, dc] of [[-1, 0], [1, 0], [0, -1], [0, 1]]) {
      let nr = r + dr;
      let nc = c + dc;
      if (wrap) {
        nr = (nr + size) % size;
        nc = (nc + size) % size;
      } else if (nr < 0 || nr >= size || nc < 0 || nc >= size) {
        continue;
      }
      out.push([nr, nc]);
    }
    return out;
  }

  function toggle(state, r, c) {
    for (const [nr, nc] of neighbours(r, c)) {
      state[nr * size + nc] = !state[nr * size + nc];
    }
  }

  function deal(seed) {
    const random = rng(seed);
    let state;
    do {
      state = new Array(size * size).fill(false);
      const presses = size * size;
      for (let i = 0; i < presses; i++) {
        if (random() < 0.5) toggle(state, Math.floor(i / size), i % size);
      }
    } while (state.every((on) => !on));
    return state;
  }

  function render() {
    const buttons = board.children;
    for (let i = 0; i < lights.length; i++) {
      buttons[i].dataset.on = String(lights[i]);
      buttons[i].classList.toggle("focused", i === focus);
      buttons[i].setAttribute("aria-pressed", String(lights[i]));
    }
    status.textContent = solved ? `Solved in ${moves} moves!` : `Moves: ${moves}`;
    status.classList.toggle("solved", solved);
  }

  function press(index) {
    if (solved) return;
    toggle(lights, Math.floor(index / size), index % size);
    moves += 1;
    solved = lights.every((on) => !on);
    render();
  }

  function build() {
    board.innerHTML = "";
    board.dataset.size = String(size);
    board.classList.toggle("wrap", wrap);
    board.style.gridTemplateColumns = `repeat(${size}, auto)`;
    for (let i = 0; i < size * size; i++) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "light";
      button.dataset.row = String(Math.floor(i / size));
      button.dataset.col = String(i % size);
      button.setAttribute("aria-label", `row ${Math.floor(i / size) + 1}, column ${(i % size) + 1}`);
      button.addEventListener("click", (event) => {
        // Space/Enter on a focused button also fires a click (detail 0); the
        // keydown handler already pressed it.
        if (event.detail === 0) return;
        focus = i;
        press(i);
      });
      board.appendChild(button);
    }
  }

  function start(seed) {
    dealt = deal(seed);
    restart();
  }

  function restart() {
    lights = dealt.slice();
    moves = 0;
    solved = false;
    render();
  }

  function randomSeed() {
    return Math.floor(Math.random() * 2 ** 31);
  }

  document.getElementById("new-game").addEventListener("click", () => start(randomSeed()));
  document.getElementById("restart").addEventListener("click", restart);
  document.addEventListener("keydown", (event) => {
    const r = Math.floor(focus / size);
    const c = focus % size;
    const moves_ = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (event.key in moves_) {
      const [dr, dc] = moves_[event.key];
      const nr = Math.min(size - 1, Math.max(0, r + dr));
      const nc = Math.min(size - 1, Math.max(0, c + dc));
      focus = nr * size + nc;
      render();
      event.preventDefault();
    } else if (event.key === " " || event.key === "Enter") {
      press(focus);
      event.preventDefault();
    } else if (event.key === "n" || event.key === "N") {
      start(randomSeed());
    } else if (event.key === "r" || event.key === "R") {
      restart();
    }
  });

  const param = new URLSearchParams(window.location.search).get("seed");
  const seed = param !== null && /^-?\d+$/.test(param) ? Number(param) : randomSeed();
  build();
  start(seed);
})();
