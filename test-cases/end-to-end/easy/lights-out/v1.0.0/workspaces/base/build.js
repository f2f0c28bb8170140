#!/usr/bin/env node
// Builds the static site: copies src/ to dist/ (replacing it). No dependencies.
"use strict";
const fs = require("fs");
const path = require("path");

const src = path.join(__dirname, "src");
const dist = path.join(__dirname, "dist");

fs.rmSync(dist, { recursive: true, force: true });
fs.cpSync(src, dist, { recursive: true });
if (!fs.existsSync(path.join(dist, "index.html"))) {
  console.error("build.js: src/index.html is missing");
  process.exit(1);
}
console.log(`built ${dist}`);
