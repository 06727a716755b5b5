import { afterEach, describe, expect, it, vi } from "vitest";
import { decodeBase64, decodedBase64Length, decodePaddedBase64, encodeBase64, isBase64 } from "./base64.js";

describe("isBase64", () => {
  it.each(["", "QQ==", "QUI=", "QUJD", "QUJDRA", "+/+/"])("accepts %j", (text) => {
    expect(isBase64(text)).toBe(true);
  });

  it.each(["Q", "QUJDR", "QQ=", "Q===", "QU JD", "QUJD\n", "-_-_", "QQ==QQ==", "QUJD=A"])(
    "refuses %j",
    (text) => {
      expect(isBase64(text)).toBe(false);
    },
  );
});

describe("decodedBase64Length", () => {
  it.each([
    ["", 0],
    ["QQ==", 1],
    ["QUI=", 2],
    ["QUJD", 3],
    ["QUJDRA", 4],
  ])("knows %j decodes to %i bytes", (text, length) => {
    expect(decodedBase64Length(text)).toBe(length);
    expect(decodeBase64(text)).toHaveLength(length);
  });
});

describe("decodeBase64", () => {
  afterEach(() => vi.unstubAllGlobals());

  const expected = Uint8Array.from([0xff, 0xd8, 0xff, 0x00, 0x41]);

  it("decodes with the runtime's decoder", () => {
    expect(decodeBase64("/9j/AEE=")).toEqual(expected);
  });

  it("falls back to atob where Uint8Array.fromBase64 is missing", () => {
    const native = Object.getOwnPropertyDescriptor(Uint8Array, "fromBase64");
    Object.defineProperty(Uint8Array, "fromBase64", { value: undefined, configurable: true });
    try {
      expect(decodeBase64("/9j/AEE=")).toEqual(expected);
      expect(decodeBase64("/9j/AEE")).toEqual(expected);
    } finally {
      if (native) Object.defineProperty(Uint8Array, "fromBase64", native);
      else delete (Uint8Array as { fromBase64?: unknown }).fromBase64;
    }
  });

  it("uses Uint8Array.fromBase64 when the runtime has it", () => {
    const fromBase64 = vi.fn(() => expected);
    const native = Object.getOwnPropertyDescriptor(Uint8Array, "fromBase64");
    Object.defineProperty(Uint8Array, "fromBase64", { value: fromBase64, configurable: true });
    try {
      expect(decodeBase64("/9j/AEE=")).toBe(expected);
      expect(fromBase64).toHaveBeenCalledWith("/9j/AEE=");
    } finally {
      if (native) Object.defineProperty(Uint8Array, "fromBase64", native);
      else delete (Uint8Array as { fromBase64?: unknown }).fromBase64;
    }
  });
});

describe("encodeBase64", () => {
  it("writes standard padded base64 that decodeBase64 reads back, for inputs past one chunk", () => {
    expect(encodeBase64(new Uint8Array([0, 255, 16]))).toBe("AP8Q");
    expect(encodeBase64(new TextEncoder().encode("hi"))).toBe("aGk=");
    const large = Uint8Array.from({ length: 100_000 }, (_, index) => (index * 7) % 256);
    expect(decodeBase64(encodeBase64(large))).toEqual(large);
  });
});

describe("decodePaddedBase64", () => {
  it("reads base64 padded to whole quads only, as secrets are written", () => {
    expect(decodePaddedBase64("aGk=")).toEqual(new TextEncoder().encode("hi"));
    expect(decodePaddedBase64("aGk")).toBeUndefined();
    expect(decodePaddedBase64("a-k=")).toBeUndefined();
  });
});
