// Checks Adaptive Cards with the adaptivecards package's own parser, as
// TestTeamsAdaptiveCard runs it: node adaptivecard-check.js <adaptivecards.js>
// reads a JSON array of {"name", "card"} on standard input and writes a
// JSON array of {"name", "problems"}. A card has a problem when parsing it
// for version 1.4 reports an event, when its properties do not validate,
// or when it does not come back the same from the parser's own toJSON
// (a property the parser does not know, or one newer than 1.4, is dropped).
"use strict";
const AC = require(process.argv[2]);

function canonical(v) {
  if (Array.isArray(v)) return v.map(canonical);
  if (v && typeof v === "object") {
    const out = {};
    for (const k of Object.keys(v).sort()) out[k] = canonical(v[k]);
    return out;
  }
  return v;
}

function firstDifference(a, b, path) {
  if (JSON.stringify(a) === JSON.stringify(b)) return null;
  if (a && b && typeof a === "object" && typeof b === "object") {
    for (const k of new Set([...Object.keys(a), ...Object.keys(b)])) {
      const d = firstDifference(a[k], b[k], path + "/" + k);
      if (d) return d;
    }
  }
  return path + ": sent " + JSON.stringify(a) + ", parsed " + JSON.stringify(b);
}

function check(card) {
  const problems = [];
  const c = new AC.AdaptiveCard();
  const ctx = new AC.SerializationContext(AC.Versions.v1_4);
  c.parse(card, ctx);
  for (let i = 0; i < ctx.eventCount; i++) problems.push("parse: " + ctx.getEventAt(i).message);
  for (const e of c.validateProperties().validationEvents) problems.push("validate: " + e.message);
  const back = c.toJSON(new AC.SerializationContext(AC.Versions.v1_4));
  const d = firstDifference(canonical(card), canonical(back), "");
  if (d) problems.push("round trip: " + d);
  return problems;
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (s) => (input += s));
process.stdin.on("end", () => {
  const out = JSON.parse(input).map((c) => ({ name: c.name, problems: check(c.card) }));
  process.stdout.write(JSON.stringify(out));
});
