import { describe, expect, it } from "vitest";
import { BoundedCache } from "./bounded-cache.js";

describe("BoundedCache", () => {
  it("derives once per key and forgets the oldest beyond its capacity", async () => {
    const cache = new BoundedCache<number>(2);
    let derivations = 0;
    const derive = async () => ++derivations;
    expect(await cache.get("a", derive)).toBe(1);
    expect(await cache.get("a", derive)).toBe(1);
    await cache.get("b", derive);
    await cache.get("c", derive);
    expect(await cache.get("a", derive)).toBe(4);
  });

  it("hands out a finished derivation without a promise, and forgets it with its entry", async () => {
    const cache = new BoundedCache<number | undefined>(1);
    expect(cache.settled("a")).toBeUndefined();
    const pending = cache.get("a", async () => undefined);
    expect(cache.settled("a")).toBeUndefined();
    await pending;
    expect(cache.settled("a")).toEqual({ value: undefined });
    await cache.get("b", async () => 2);
    expect(cache.settled("a")).toBeUndefined();
    expect(cache.settled("b")).toEqual({ value: 2 });
  });

  it("does not keep a failed derivation", async () => {
    const cache = new BoundedCache<number>(2);
    await expect(cache.get("a", () => Promise.reject(new Error("no")))).rejects.toThrow("no");
    expect(await cache.get("a", async () => 7)).toBe(7);
  });
});
