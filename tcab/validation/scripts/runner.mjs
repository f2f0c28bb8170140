// tcab's runner for a case's validation script (tcab/validation/scripts/run.py).
//
// Run by Playwright's own Node (the Python package's driver), it connects over
// the DevTools protocol to the Chromium tcab started fenced (only the site's
// port reachable, a watchdog outside), loads the served build and runs the
// case author's script against the build's debug API (window[handle]). The
// script is trusted; the build is not: every call into the page is bounded
// (callTimeoutMs), its answer is size-capped JSON, a navigation away from the
// loaded document ends the script, the page's console is kept as a bounded
// tail, and pixels and clips are read in an isolated world the page's own
// script cannot reach (a page that patches getImageData or MediaRecorder
// patches its own world only).
//
// Two script shapes, as the original Test Cabinet's:
//   * item(): `export default function item() { return {id, arrange, act, assert} }`,
//     run twice: a validate pass on the build's manual clock (advance = step)
//     decides; a record pass in real time (advance = wait) films `act`.
//   * drive(api, ttc): one pass; the script steps and waits itself and
//     returns `check.verdict()`.
//
// The result lands in cfg.result as JSON: {decided, pass, reason, verdict,
// assertions, produced, log, logDropped}. Exit 0 whenever a result was written.

import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";

const cfg = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const require = createRequire(import.meta.url);
const { chromium } = require(cfg.playwright);

// ---- bounded log tail ------------------------------------------------------
const log = [];
let logDropped = 0;
function note(line) {
  let text = String(line);
  if (text.length > cfg.logChars) text = text.slice(0, cfg.logChars) + "...";
  log.push(text);
  if (log.length > cfg.logLines) {
    log.shift();
    logDropped += 1;
  }
}

/** Ends the script without a decision; its message says why. */
class Undecided extends Error {}

/** Thrown by a hard assert<Op> that failed: a decided, failed verdict. */
class VerdictStop extends Error {}

/** Unwinds `act` in the record pass once the clip has its length. */
class ClipDone extends Error {}

function bounded(what, promise, ms = cfg.callTimeoutMs) {
  let timer;
  const limit = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Undecided(`${what} did not answer within ${ms / 1000}s`)), ms);
  });
  return Promise.race([promise, limit]).finally(() => clearTimeout(timer));
}

function firstLine(err) {
  const text = String((err && err.message) || err);
  return text.split("\n")[0].slice(0, 500);
}

// ---- the check kit (ttc) ---------------------------------------------------
function show(value) {
  if (typeof value === "string") return value;
  if (value === undefined || value === null || typeof value !== "object") return String(value);
  try {
    return JSON.stringify(value).slice(0, 500);
  } catch {
    return String(value);
  }
}

const MATCHERS = {
  Eq: (a, e) => [Object.is(a, e), e, a],
  Ne: (a, u) => [!Object.is(a, u), `not ${show(u)}`, a],
  Gt: (a, b) => [a > b, `> ${show(b)}`, a],
  Ge: (a, b) => [a >= b, `>= ${show(b)}`, a],
  Lt: (a, b) => [a < b, `< ${show(b)}`, a],
  Le: (a, b) => [a <= b, `<= ${show(b)}`, a],
  Close: (a, e, tol = 1e-6) => [Math.abs(a - e) <= tol, `${show(e)} ± ${show(tol)}`, a],
  Ok: (c) => [Boolean(c), undefined, undefined],
};

function makeCheck(id, { silent = false } = {}) {
  const assertions = [];
  const check = { id, assertions, verdict: () => ({ verdicts: { [id]: assertions } }) };
  for (const [op, matcher] of Object.entries(MATCHERS)) {
    const record = (label, operands) => {
      if (silent) return true;
      const [pass, expected, actual] = matcher(...operands);
      const assertion = { label: String(label ?? "").slice(0, 500), pass: Boolean(pass) };
      if (expected !== undefined) assertion.expected = show(expected);
      if (actual !== undefined) assertion.actual = show(actual);
      if (assertions.length < cfg.maxAssertions) assertions.push(assertion);
      return assertion.pass;
    };
    check[`expect${op}`] = (label, ...operands) => record(label, operands);
    check[`assert${op}`] = (label, ...operands) => {
      if (!record(label, operands)) throw new VerdictStop(`hard assertion failed: ${label}`);
      return true;
    };
  }
  return check;
}

// ---- the page --------------------------------------------------------------
let current = null;

/** Move the page's console tail into the log (best effort: it is the build's own). */
async function drainConsole(state) {
  if (!state || state.drained || state.navigated) return;
  state.drained = true;
  try {
    const got = await bounded("reading the console", state.page.evaluate(() => window.__tcabConsole()), 2000);
    if (got && Array.isArray(got.tail)) {
      const lines = got.tail.filter((line) => typeof line === "string");
      const count = Number(got.count) || 0;
      if (count > lines.length) note(`... the page logged ${count} console lines, the last ${lines.length} follow`);
      for (const line of lines) note(line);
    }
  } catch {
    // a page that hangs or hides its console keeps it
  }
}

const produced = new Set();
const declared = new Map(cfg.outputs.map((o) => [o.id, o.kind]));

async function openPage(browser) {
  const context = await bounded(
    "opening a browser context",
    browser.newContext({
      viewport: { width: cfg.viewport[0], height: cfg.viewport[1] },
      deviceScaleFactor: 1,
      serviceWorkers: "block",
      acceptDownloads: false,
    }),
  );
  await context.route("**/*", (route) => {
    const target = route.request().url();
    if (target.startsWith(cfg.url) || target.startsWith("data:") || target.startsWith("blob:")) {
      return route.continue();
    }
    note(`blocked a request outside the site: ${target.slice(0, 200)}`);
    return route.abort();
  });
  // The page's console stays in the page, as a bounded tail: a flood sent over
  // the DevTools connection message by message would starve every call.
  await context.addInitScript(([lines, chars]) => {
    const tail = [];
    let count = 0;
    const keep = (kind, args) => {
      count += 1;
      let text;
      try {
        text = args.map((a) => (typeof a === "string" ? a : String(a))).join(" ");
      } catch {
        text = "[unprintable]";
      }
      tail.push(`console.${kind}: ${text.slice(0, chars)}`);
      if (tail.length > lines) tail.shift();
    };
    for (const kind of ["log", "info", "warn", "error", "debug", "trace"]) {
      console[kind] = (...args) => keep(kind, args);
    }
    Object.defineProperty(window, "__tcabConsole", { value: () => ({ tail: tail.slice(), count }) });
    // The original's audio probe: when each Web Audio source was start()ed
    // (bounded; a probe only, it records no audio).
    const starts = [];
    const wrap = (proto) => {
      const desc = proto && Object.getOwnPropertyDescriptor(proto, "start");
      if (!desc || typeof desc.value !== "function") return;
      const original = desc.value;
      proto.start = function (...args) {
        if (starts.length < 10000) starts.push({ t: performance.now() });
        return original.apply(this, args);
      };
    };
    for (const name of ["AudioScheduledSourceNode", "OscillatorNode", "AudioBufferSourceNode", "ConstantSourceNode"]) {
      if (window[name]) wrap(window[name].prototype);
    }
    Object.defineProperty(window, "__tcabAudio", { value: () => starts.slice() });
  }, [cfg.logLines, cfg.logChars]);
  const page = await bounded("opening a page", context.newPage());
  const state = { page, context, loaded: false, navigated: null, world: null, cdp: null };
  current = state;
  page.on("pageerror", (err) => note(`pageerror: ${firstLine(err)}`));
  page.on("dialog", (dialog) => dialog.dismiss().catch(() => {}));
  page.on("framenavigated", (frame) => {
    if (state.loaded && frame === page.mainFrame() && !state.navigated) {
      state.navigated = frame.url().slice(0, 200);
    }
  });
  page.on("load", () => {
    if (state.loaded && !state.navigated) state.navigated = page.url().slice(0, 200);
  });
  let response;
  try {
    response = await bounded(
      "loading index.html",
      page.goto(cfg.url + "index.html", { waitUntil: "load", timeout: cfg.loadTimeoutMs }),
      cfg.loadTimeoutMs + 1000,
    );
  } catch (err) {
    if (err instanceof Undecided) throw err;
    throw new Undecided(`index.html did not load: ${firstLine(err)}`);
  }
  if (!response || response.status() !== 200) {
    throw new Undecided(`index.html answered ${response ? response.status() : "nothing"}`);
  }
  state.loaded = true;
  try {
    await page.waitForFunction((h) => Boolean(window[h]), cfg.handle, { timeout: cfg.handleTimeoutMs });
  } catch {
    throw new Undecided(`the build did not install window.${cfg.handle} within ${cfg.handleTimeoutMs / 1000}s`);
  }
  // An isolated world: the page's own script cannot patch what runs there.
  state.cdp = await context.newCDPSession(page);
  const tree = await bounded("reading the frame tree", state.cdp.send("Page.getFrameTree"));
  const world = await bounded(
    "creating an isolated world",
    state.cdp.send("Page.createIsolatedWorld", { frameId: tree.frameTree.frame.id, worldName: "tcab-validation" }),
  );
  state.world = world.executionContextId;
  return state;
}

function stillHere(state) {
  if (state.navigated) throw new Undecided(`the page navigated away from the build it loaded (to ${state.navigated})`);
}

/** Evaluate `expression` in the isolated world; its value (JSON-able). */
async function inWorld(state, what, expression) {
  stillHere(state);
  const answer = await bounded(
    what,
    state.cdp.send("Runtime.evaluate", {
      expression,
      contextId: state.world,
      returnByValue: true,
      awaitPromise: true,
    }),
  );
  stillHere(state);
  if (answer.exceptionDetails) {
    const text = (answer.exceptionDetails.exception && answer.exceptionDetails.exception.description) ||
      answer.exceptionDetails.text;
    throw new Undecided(`${what}: ${String(text).split("\n")[0].slice(0, 300)}`);
  }
  return answer.result.value;
}

/** Call window[handle][method](...args) in the page; its answer as JSON, size-capped. */
async function callBuild(state, method, args) {
  stillHere(state);
  let text;
  try {
    text = await bounded(
      `window.${cfg.handle}.${method}()`,
      state.page.evaluate(
        async ([h, m, a, cap]) => {
          const target = window[h];
          if (!target) throw new Error(`window.${h} is not installed`);
          if (typeof target[m] !== "function") throw new Error(`window.${h}.${m} is not a function`);
          const value = await target[m](...a);
          if (value === undefined) return "undefined";
          const s = JSON.stringify(value);
          if (typeof s !== "string") return "undefined";
          if (s.length > cap) throw new Error(`answered ${s.length} characters of JSON (limit ${cap})`);
          return s;
        },
        [cfg.handle, method, args, cfg.maxAnswerChars],
      ),
    );
  } catch (err) {
    if (err instanceof Undecided) throw err;
    // The navigation event may trail the call it broke.
    await new Promise((resolve) => setTimeout(resolve, 200));
    if (!state.navigated && /context was destroyed|navigat/i.test(String(err && err.message))) {
      state.navigated = state.page.url().slice(0, 200);
    }
    stillHere(state);
    throw new Undecided(`window.${cfg.handle}.${method}() failed: ${firstLine(err)}`);
  }
  stillHere(state);
  if (typeof text !== "string" || text.length > cfg.maxAnswerChars) {
    throw new Undecided(`window.${cfg.handle}.${method}() answered something that is not bounded JSON`);
  }
  return text === "undefined" ? undefined : JSON.parse(text);
}

const LARGEST_CANVAS = `(() => {
  let best = null;
  for (const c of document.querySelectorAll("canvas")) {
    if (!best || c.width * c.height > best.width * best.height) best = c;
  }
  return best;
})()`;

function outputFile(id, kind) {
  return path.join(cfg.outDir, kind === "image" ? `${id}.png` : `${id}.webm`);
}

function claim(id, kind) {
  const want = declared.get(String(id));
  if (want === undefined) throw new Undecided(`the script produced an output it did not declare: ${String(id).slice(0, 100)}`);
  const clip = (k) => (k === "clip" || k === "video" ? "clip" : k);
  if (clip(want) !== clip(kind)) throw new Undecided(`output ${id} is declared as ${want}, the script made a ${kind}`);
}

// ---- the api a script gets -------------------------------------------------
function baseApi(state, recording) {
  return {
    reset: (options) => callBuild(state, "reset", options === undefined ? [] : [options]),
    step: (amount) => callBuild(state, "step", [amount]),
    snapshot: () => callBuild(state, "snapshot", []),
    call: (method, ...args) => callBuild(state, String(method), args),
    probe: (names) =>
      bounded("probe", state.page.evaluate(([h, ns]) => {
        const target = window[h] || {};
        const ops = {};
        for (const n of ns) ops[n] = typeof target[n];
        return { version: typeof target.version === "number" ? target.version : null, ops };
      }, [cfg.handle, names])),
    wait: async (ms) => {
      const n = Math.max(0, Number(ms) || 0);
      if (n > cfg.maxWaitMs) throw new Undecided(`wait(${n}) is longer than ${cfg.maxWaitMs}ms`);
      await new Promise((resolve) => setTimeout(resolve, n));
      stillHere(state);
    },
    pixel: (u, v) =>
      inWorld(state, "pixel()", `(() => {
        const canvas = ${LARGEST_CANVAS};
        if (!canvas) throw new Error("no <canvas> element to sample a pixel from");
        const ctx = canvas.getContext("2d");
        if (!ctx) throw new Error("the game canvas has no readable 2D context");
        const x = Math.min(canvas.width - 1, Math.max(0, Math.floor(${Number(u)} * canvas.width)));
        const y = Math.min(canvas.height - 1, Math.max(0, Math.floor(${Number(v)} * canvas.height)));
        const d = ctx.getImageData(x, y, 1, 1).data;
        return { r: d[0], g: d[1], b: d[2], a: d[3] };
      })()`),
    audio: async () => {
      const got = await bounded("audio()", state.page.evaluate(() => window.__tcabAudio()));
      return Array.isArray(got) ? got.slice(0, 10000).map((e) => ({ t: Number(e && e.t) || 0 })) : [];
    },
    userDoubleClick: async (u, v) => {
      const point = await inWorld(state, "userDoubleClick()", `(() => {
        const canvas = ${LARGEST_CANVAS};
        if (!canvas) throw new Error("no <canvas> element to double-click");
        const r = canvas.getBoundingClientRect();
        return { x: r.left + ${Number(u)} * r.width, y: r.top + ${Number(v)} * r.height };
      })()`);
      await bounded("userDoubleClick()", state.page.mouse.dblclick(point.x, point.y));
    },
    userKey: (code) => bounded("userKey()", state.page.keyboard.press(String(code))),
    userClick: (x, y) => bounded("userClick()", state.page.mouse.click(Number(x) || 0, Number(y) || 0)),
    screenshot: async (id) => {
      claim(id, "image");
      if (!recording) return;
      stillHere(state);
      const png = await bounded(
        "screenshot()",
        state.page.screenshot({ type: "png", timeout: cfg.callTimeoutMs }),
        cfg.callTimeoutMs + 1000,
      );
      stillHere(state);
      fs.writeFileSync(outputFile(String(id), "image"), png);
      produced.add(String(id));
    },
  };
}

// ---- the clip: MediaRecorder on the game's canvas, in the isolated world ----
const MIN_CLIP_MS = 1000;
const MAX_CLIP_START_MS = 5000;
const clipOutput = cfg.outputs.find((o) => o.kind === "clip" || o.kind === "video");

async function startClip(state) {
  await inWorld(state, "starting the clip", `(() => {
    const canvas = ${LARGEST_CANVAS};
    if (!canvas) throw new Error("no <canvas> element to film");
    const stream = canvas.captureStream(30);
    const recorder = new MediaRecorder(stream, { mimeType: "video/webm;codecs=vp8" });
    const chunks = [];
    let bytes = 0;
    recorder.ondataavailable = (e) => {
      bytes += e.data.size;
      if (bytes <= ${cfg.maxClipBytes}) chunks.push(e.data);
    };
    recorder.start(250);
    window.__tcabClip = { recorder, chunks, size: () => bytes, started: performance.now() };
    return true;
  })()`);
}

async function stopClip(state) {
  // The encoder needs a moment to start (longer on a loaded host): film on
  // until it has delivered data, within MAX_CLIP_START_MS.
  const waited = Date.now();
  for (;;) {
    const got = await inWorld(state, "timing the clip",
      "[performance.now() - window.__tcabClip.started, window.__tcabClip.size()]");
    if ((got[0] >= MIN_CLIP_MS && got[1] > 0) || Date.now() - waited > MAX_CLIP_START_MS) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const b64 = await inWorld(state, "finishing the clip", `new Promise((resolve, reject) => {
    const clip = window.__tcabClip;
    clip.recorder.onstop = async () => {
      if (clip.size() > ${cfg.maxClipBytes}) return reject(new Error("the clip passed ${cfg.maxClipBytes} bytes"));
      const bytes = new Uint8Array(await new Blob(clip.chunks, { type: "video/webm" }).arrayBuffer());
      let text = "";
      for (let i = 0; i < bytes.length; i += 32768) text += String.fromCharCode(...bytes.subarray(i, i + 32768));
      resolve(btoa(text));
    };
    clip.recorder.stop();
  })`);
  const data = Buffer.from(String(b64), "base64");
  if (data.length === 0) throw new Undecided(`the clip recorded no frame within ${MAX_CLIP_START_MS / 1000}s`);
  fs.writeFileSync(outputFile(clipOutput.id, "clip"), data);
  produced.add(clipOutput.id);
}

// ---- running the two shapes ------------------------------------------------
function instantiate(mod) {
  const exported = mod.default ?? mod.item;
  if (typeof exported !== "function" && (typeof exported !== "object" || exported === null)) {
    throw new Undecided("the script exports no default function or item object");
  }
  return exported;
}

function isItemShape(exported) {
  if (typeof exported === "object") return true;
  return exported.length === 0;  // item() takes nothing, drive(api, ttc) takes two
}

function itemApi(base, { recording, phase, budget }) {
  const unitMs = cfg.tickHz ? 1000 / cfg.tickHz : 1000;
  const timed = (name) => {
    if (phase.current === "arrange") {
      throw new Undecided(`api.${name}() was called from arrange(), which must be instant`);
    }
  };
  const spend = (ms) => {
    if (!recording) return;
    budget.remaining -= ms;
    if (budget.remaining <= 0) throw new ClipDone();
  };
  return {
    ...base,
    reset: async (options) => {
      const result = await base.reset(options);
      if (recording && phase.current === "act") await base.call("setAutoStep", true);
      return result;
    },
    advance: async (amount) => {
      timed("advance");
      const n = Number(amount) || 0;
      if (recording) {
        spend(n * unitMs);
        return base.wait(n * unitMs);
      }
      return base.step(n);
    },
    until: async (predicate, { max, poll = 1 } = {}) => {
      timed("until");
      const limit = Number(max) || 0;
      const chunk = Number(poll) || 1;
      let snap = await base.snapshot();
      if (predicate(snap)) return { snap, hit: true, spent: 0 };
      for (let spent = 0; spent < limit; spent += chunk) {
        if (recording) {
          spend(chunk * unitMs);
          await base.wait(chunk * unitMs);
        } else await base.step(chunk);
        snap = await base.snapshot();
        if (predicate(snap)) return { snap, hit: true, spent: spent + chunk };
      }
      return { snap, hit: false, spent: limit };
    },
    settle: (ms) => base.wait(ms),
    step: undefined,
    wait: undefined,
  };
}

async function runItemPass(exported, state, { recording, check }) {
  const item = typeof exported === "function" ? exported() : exported;
  if (!item || typeof item.arrange !== "function" || typeof item.act !== "function") {
    throw new Undecided("the item has no arrange() and act()");
  }
  const phase = { current: "arrange" };
  const budget = { remaining: Number(item.clipMs) || cfg.clipMs };
  const api = itemApi(baseApi(state, recording), { recording, phase, budget });
  await item.arrange(api);
  await api.call("setAutoStep", recording);
  phase.current = "act";
  const filming = recording && clipOutput;
  if (filming) await startClip(state);
  try {
    await item.act(api, check);
  } catch (err) {
    if (!(recording && err instanceof ClipDone)) throw err;
  }
  if (filming) await stopClip(state);
  if (!recording && typeof item.assert === "function") {
    phase.current = "assert";
    await item.assert(api, check);
  }
  return item.id;
}

async function main(browser) {
  fs.mkdirSync(cfg.outDir, { recursive: true });
  const mod = await import(pathToFileURL(cfg.script).href);
  const exported = instantiate(mod);
  let check;
  let stopped = false;
  let noMedia = null;
  let state = await openPage(browser);
  if (isItemShape(exported)) {
    const probe = typeof exported === "function" ? exported() : exported;
    check = makeCheck(String((probe && probe.id) || cfg.itemId));
    try {
      await runItemPass(exported, state, { recording: false, check });
    } catch (err) {
      if (!(err instanceof VerdictStop)) throw err;
      stopped = true;
    }
    if (cfg.outputs.length > 0) {
      await drainConsole(state);
      await state.context.close().catch(() => {});
      // The record pass only films: when the validate pass already failed the
      // item, a record pass that breaks leaves the failure standing, without media.
      const failed = stopped || check.assertions.some((a) => !a.pass);
      try {
        state = await openPage(browser);
        await runItemPass(exported, state, { recording: true, check: makeCheck(check.id, { silent: true }) });
      } catch (err) {
        if (!failed) throw err;
        noMedia = `the record pass did not complete: ${err instanceof Undecided ? err.message : firstLine(err)}`;
        note(noMedia);
      }
    }
  } else {
    // drive(api, ttc): one pass, real time; a clip films the whole of it.
    let opened = null;
    const ttc = { checkOne: (id) => (opened = makeCheck(String(id))) };
    if (clipOutput) await startClip(state);
    let returned;
    try {
      returned = await exported(baseApi(state, true), ttc);
    } catch (err) {
      if (!(err instanceof VerdictStop)) throw err;
      stopped = true;
    }
    if (clipOutput && !stopped) await stopClip(state);
    check = opened;
    if (!check && returned && typeof returned === "object" && returned.verdicts) {
      const ids = Object.keys(returned.verdicts);
      if (ids.length !== 1) throw new Undecided(`the script returned ${ids.length} verdicts, not one`);
      check = makeCheck(ids[0]);
      const value = returned.verdicts[ids[0]];
      if (Array.isArray(value)) check.assertions.push(...value.slice(0, cfg.maxAssertions).map((a) => ({
        label: String(a.label ?? "").slice(0, 500), pass: a.pass === true || a.pass === "pass" })));
      else check.assertions.push({ label: "the script's verdict", pass: value === true || value === "pass" });
    }
    if (!check) throw new Undecided("the script opened no check (ttc.checkOne) and returned no verdict");
  }
  await drainConsole(state);
  await state.context.close().catch(() => {});
  const missing = cfg.outputs.filter((o) => !produced.has(o.id)).map((o) => o.id);
  if (missing.length > 0 && !stopped && !noMedia) {
    throw new Undecided(`the script did not produce its declared output(s): ${missing.join(", ")}`);
  }
  if (check.assertions.length === 0) throw new Undecided("the script recorded no assertion");
  return {
    decided: true,
    pass: check.assertions.every((a) => a.pass),
    reason: stopped ? "stopped early on a failed hard assertion" : noMedia,
    verdict: check.id,
    assertions: check.assertions,
  };
}

let result;
let browser = null;
try {
  browser = await bounded("connecting to Chromium", chromium.connectOverCDP(cfg.endpoint, { timeout: cfg.callTimeoutMs }));
  result = await main(browser);
} catch (err) {
  await drainConsole(current);
  const reason = err instanceof Undecided ? err.message : `the script failed: ${firstLine(err)}`;
  result = { decided: false, pass: null, reason, verdict: null, assertions: [] };
}
result.produced = [...produced];
result.log = log;
result.logDropped = logDropped;
fs.writeFileSync(cfg.result, JSON.stringify(result));
process.exit(0);
