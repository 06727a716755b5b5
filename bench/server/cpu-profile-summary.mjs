// Summarises a .cpuprofile: self time by function and by file, inclusive time
// by function, and the hottest stacks.
//
//   node bench/server/cpu-profile-summary.mjs <file.cpuprofile> [rows]
import { readFileSync } from "node:fs";

export function summariseProfile(path, rows = 40) {
  const profile = JSON.parse(readFileSync(path, "utf8"));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map();
  for (const sample of profile.samples) self.set(sample, (self.get(sample) ?? 0) + 1);
  const idle = [...self].filter(([id]) => byId.get(id).callFrame.functionName === "(idle)");
  const total = profile.samples.length - idle.reduce((sum, [, count]) => sum + count, 0);

  const shortUrl = (url) =>
    url.replace(/^.*node_modules\/\.pnpm\/[^/]+\/node_modules\//, "").replace(/^.*\/work\/[^/]+\//, "");
  const frameName = (id) => {
    const { functionName, url, lineNumber } = byId.get(id).callFrame;
    return `${functionName || "(anonymous)"} ${shortUrl(url).split("/").slice(-2).join("/")}:${lineNumber + 1}`;
  };
  const add = (map, key, count) => map.set(key, (map.get(key) ?? 0) + count);
  const functions = new Map();
  const files = new Map();
  const inclusive = new Map();
  const stacks = new Map();
  for (const [id, count] of self) {
    if (byId.get(id).callFrame.functionName === "(idle)") continue;
    const name = frameName(id);
    add(functions, name, count);
    add(files, shortUrl(byId.get(id).callFrame.url) || byId.get(id).callFrame.functionName, count);
    const seen = new Set();
    const chain = [];
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const frame = frameName(at);
      if (chain.length < 5) chain.push(frame);
      if (!seen.has(frame)) {
        seen.add(frame);
        add(inclusive, frame, count);
      }
    }
    add(stacks, chain.join(" < "), count);
  }
  const top = (map, n) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([name, count]) => `${((count / total) * 100).toFixed(1).padStart(5)}%  ${name}`)
      .join("\n");
  return [
    `busy samples: ${total} (idle left out; percentages of busy time)`,
    `\nself time by function:\n${top(functions, rows)}`,
    `\nself time by file:\n${top(files, 25)}`,
    `\ninclusive time by function:\n${top(inclusive, rows)}`,
    `\nhottest stacks:\n${top(stacks, 25)}`,
  ].join("\n");
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(summariseProfile(process.argv[2], Number(process.argv[3] ?? 40)));
}
