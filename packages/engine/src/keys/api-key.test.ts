import { describe, expect, it } from "vitest";
import { apiKeyChecksum, generateApiKey, hashApiKey, isPlausibleApiKey } from "./api-key.js";

describe("API keys", () => {
  it("are gen_sk_ + 32 base62 characters + a 6-character checksum of them", async () => {
    const key = await generateApiKey();
    expect(key).toMatch(/^gen_sk_[0-9A-Za-z]{38}$/);
    expect(key.slice(-6)).toBe(await apiKeyChecksum(key.slice(7, 39)));
    expect(await isPlausibleApiKey(key)).toBe(true);
  });

  it("differ every time", async () => {
    const keys = new Set(await Promise.all(Array.from({ length: 50 }, generateApiKey)));
    expect(keys.size).toBe(50);
  });

  it("are stored as SHA-256 hex", async () => {
    expect(await hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});
