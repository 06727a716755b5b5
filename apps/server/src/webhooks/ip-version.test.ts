import { isIP } from "node:net";
import { classifyAddress, ipVersion } from "@genvideo/engine/rules";
import { describe, expect, it } from "vitest";

/**
 * The engine classifies addresses without `node:net` (it runs in browsers);
 * the server judges with it what it connects to. They must agree on what an
 * IP address is, or a literal could be checked as a name (or not at all).
 */
const samples = [
  "127.0.0.1",
  "0.0.0.0",
  "255.255.255.255",
  "256.0.0.1",
  "010.0.0.1",
  "1.2.3",
  "1.2.3.4.5",
  "::",
  "::1",
  "1::",
  "::ffff:127.0.0.1",
  "::ffff:1.2.3",
  "1:2:3:4:5:6:7:8",
  "1:2:3:4:5:6:7:8:9",
  "1:2:3:4:5:6:7::",
  "::2:3:4:5:6:7:8",
  "1::2:3.4.5.6",
  "1:2:3:4:5:6:1.2.3.4",
  "1:2:3:4:5:6:7:1.2.3.4",
  "fe80::1%eth0",
  "fe80::1%",
  "2001:DB8::1",
  "2001:db8:::1",
  "12345::1",
  "[::1]",
  "g::1",
  "",
  "localhost",
];

/** Deterministic strings from the characters addresses are made of. */
function* fuzz(count: number): Generator<string> {
  const alphabet = "0123456789abcdefABCDEF:.%g";
  let state = 0x9e3779b9;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 2 ** 32;
  };
  for (let index = 0; index < count; index++) {
    const length = 1 + Math.floor(next() * 24);
    let text = "";
    for (let position = 0; position < length; position++)
      text += alphabet[Math.floor(next() * alphabet.length)];
    yield text;
  }
}

/** Deterministic near-addresses: groups of hex digits, `::`, dotted quads and zones in every arrangement. */
function* structuredFuzz(count: number): Generator<string> {
  let state = 0x2545f491;
  const next = (below: number) => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) % below;
  };
  const hex = "0123456789abcdefABCDEF";
  for (let index = 0; index < count; index++) {
    const groups: string[] = [];
    for (let group = next(10); group > 0; group--) {
      let text = "";
      for (let digit = next(6); digit > 0; digit--) text += hex[next(hex.length)];
      groups.push(text);
    }
    let text = groups.join(":");
    if (next(3) === 0) text = text.replace(/:/, "::");
    if (next(4) === 0) text += `:${next(300)}.${next(300)}.${next(300)}.${next(300)}`;
    if (next(3) === 0) text = `${next(300)}.${next(300)}.${next(300)}${next(2) ? `.${next(300)}` : ""}`;
    if (next(8) === 0) text += "%eth0";
    yield text;
  }
}

describe("the engine's ipVersion", () => {
  it("accepts exactly what node:net's isIP accepts", () => {
    for (const text of [...samples, ...fuzz(20_000), ...structuredFuzz(20_000)])
      expect([text, ipVersion(text)]).toEqual([text, isIP(text)]);
  });

  it("accepts every address node:net formats, and classifies it", () => {
    for (const text of ["93.184.216.34", "2606:4700::1111", "::ffff:a00:1", "64:ff9b::7f00:1"]) {
      expect(ipVersion(text)).toBe(isIP(text));
      expect(classifyAddress(text)).not.toBe("invalid");
    }
  });
});
