import { describe, expect, it } from "vitest";
import type { Store } from "../ports.js";
import { MemoryStore } from "../store/memory-store.js";
import { renewHalfSpentLeases } from "./lease-renewal.js";

const LEASE_MS = 1_000;

describe("renewHalfSpentLeases", () => {
  it("renews only leases that have used half their length, in one transaction", async () => {
    const memory = new MemoryStore();
    let transactions = 0;
    const store = {
      transaction: (work) => {
        transactions++;
        return memory.transaction(work);
      },
    } as Pick<Store, "transaction"> as Store;
    const fresh = { leaseExpiresAt: 1_600 };
    const halfSpent = { leaseExpiresAt: 1_499 };
    const renewed: string[] = [];
    const refused = await renewHalfSpentLeases(
      store,
      new Map([
        ["fresh", fresh],
        ["half-spent", halfSpent],
      ]),
      1_000,
      LEASE_MS,
      async (_tx, id, leaseExpiresAt) => {
        renewed.push(`${id}@${leaseExpiresAt}`);
        return true;
      },
    );
    expect(refused).toEqual([]);
    expect(renewed).toEqual(["half-spent@2000"]);
    expect(halfSpent.leaseExpiresAt).toBe(2_000);
    expect(fresh.leaseExpiresAt).toBe(1_600);
    expect(transactions).toBe(1);
  });

  it("returns the leases it could not renew, which keep their expiry", async () => {
    const lost = { leaseExpiresAt: 1_100 };
    const kept = { leaseExpiresAt: 1_100 };
    const refused = await renewHalfSpentLeases(
      new MemoryStore(),
      new Map([
        ["lost", lost],
        ["kept", kept],
      ]),
      1_000,
      LEASE_MS,
      async (_tx, id) => id === "kept",
    );
    expect(refused).toEqual(["lost"]);
    expect(lost.leaseExpiresAt).toBe(1_100);
    expect(kept.leaseExpiresAt).toBe(2_000);
  });

  it("opens no transaction when no lease is due", async () => {
    let transactions = 0;
    const store = { transaction: async () => transactions++ } as unknown as Store;
    await renewHalfSpentLeases(
      store,
      new Map([["fresh", { leaseExpiresAt: 1_900 }]]),
      1_000,
      LEASE_MS,
      async () => true,
    );
    expect(transactions).toBe(0);
  });
});
