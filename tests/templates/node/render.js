// Renders [{template, context}] (JSON on stdin) with handlebars.js as tcab
// configures it (strict, noEscape, tcab's inline helpers) and prints
// [{output} | {error}] as JSON. With --write FILE, refreshes the expected
// results of the corpus FILE in place.
"use strict";
const fs = require("fs");
const Handlebars = require("handlebars");

const truthy = (v) => !!v;
const env = Handlebars.create();
env.registerHelper({
  eq: (a, b) => a === b,
  ne: (a, b) => a !== b,
  and: (...args) => args.slice(0, -1).every(truthy),
  or: (...args) => args.slice(0, -1).some(truthy),
  not: (a) => !a,
});

function render(item) {
  try {
    const fn = env.compile(item.template, { strict: true, noEscape: true });
    return { output: fn(item.context) };
  } catch (e) {
    return { error: String(e.message).split("\n")[0] };
  }
}

const args = process.argv.slice(2);
if (args[0] === "--write") {
  const corpus = JSON.parse(fs.readFileSync(args[1], "utf8"));
  for (const item of corpus) {
    const got = render(item);
    delete item.output;
    delete item.error;
    Object.assign(item, got);
  }
  fs.writeFileSync(args[1], JSON.stringify(corpus, null, 1) + "\n");
} else {
  const items = JSON.parse(fs.readFileSync(0, "utf8"));
  process.stdout.write(JSON.stringify(items.map(render)));
}
