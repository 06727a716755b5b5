import { describe, expect, it } from "vitest";
import { holdsMoreJsonValuesThan } from "./json-value-count.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("holdsMoreJsonValuesThan", () => {
  it("counts the values inside arrays and objects, an empty one as one", () => {
    expect(holdsMoreJsonValuesThan(bytes("[0,0,0]"), 3)).toBe(false);
    expect(holdsMoreJsonValuesThan(bytes("[0,0,0,0]"), 3)).toBe(true);
    expect(holdsMoreJsonValuesThan(bytes('{"a":{},"b":[]}'), 4)).toBe(false);
    expect(holdsMoreJsonValuesThan(bytes('{"a":{},"b":[],"c":1}'), 4)).toBe(true);
    expect(holdsMoreJsonValuesThan(bytes('"a lone string"'), 0)).toBe(false);
  });

  it("skips commas and brackets inside strings, escaped quotes and backslashes included", () => {
    expect(holdsMoreJsonValuesThan(bytes(JSON.stringify({ prompt: ',,,[[{{ "quoted", \\ ,,' })), 1)).toBe(
      false,
    );
    expect(holdsMoreJsonValuesThan(bytes(JSON.stringify(["a\\", ",", '\\"', "b"])), 3)).toBe(true);
    expect(holdsMoreJsonValuesThan(bytes(JSON.stringify(["a\\", ",", '\\"', "b"])), 4)).toBe(false);
    expect(holdsMoreJsonValuesThan(bytes('["unterminated, , ,'), 1)).toBe(false);
  });

  it("reads a body of four 10 MiB base64 images in a moment", () => {
    const image = `data:image/png;base64,${"A".repeat(13_981_016)}`;
    const body = bytes(JSON.stringify({ prompt: "x", reference_images: [image, image, image, image] }));
    const started = performance.now();
    expect(holdsMoreJsonValuesThan(body, 10)).toBe(false);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
