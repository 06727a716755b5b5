import type { ApiKeySummary } from "@genvideo/engine";
import { describe, expect, it } from "vitest";
import { successorOf } from "./key-state.js";

const hour = 3_600_000;
const key = (id: string, fields: Partial<ApiKeySummary>): ApiKeySummary => ({
  id,
  accountId: "account",
  prefix: `gen_sk_${id}`,
  createdAt: 0,
  revokedAt: null,
  expiresAt: null,
  name: "backend",
  lastUsedAt: null,
  ...fields,
});

describe("successorOf", () => {
  it("finds the key a rotation made: same name, made while the old one still worked", () => {
    const old = key("old", { expiresAt: 10 * hour + hour });
    const fresh = key("new", { createdAt: 10 * hour });
    expect(successorOf(old, [fresh, old])).toBe(fresh);
  });

  it("finds none for a key without end, another name, a key made after it stopped, or a revoked one", () => {
    const old = key("old", { expiresAt: 5 * hour });
    expect(successorOf(key("forever", {}), [key("new", { createdAt: hour })])).toBeUndefined();
    expect(successorOf(old, [key("other", { createdAt: hour, name: "other" })])).toBeUndefined();
    expect(successorOf(old, [key("later", { createdAt: 6 * hour })])).toBeUndefined();
    expect(successorOf(old, [key("gone", { createdAt: hour, revokedAt: 2 * hour })])).toBeUndefined();
  });
});
