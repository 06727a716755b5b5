/**
 * The behaviour every `Store` must have, as a vitest suite that any store runs
 * against itself: the engine's memory store and the server's SQLite and
 * PostgreSQL stores, and any new store the same way. It pins down what
 * ports.ts says in prose: atomic transactions, compare-and-set transitions,
 * claims and leases. One file per area in `store-contract/`.
 */
import { afterEach, beforeEach, describe } from "vitest";
import type { Store } from "../ports.js";
import { accountsAndLedger } from "./store-contract/accounts-and-ledger.js";
import { claimsAndLeases } from "./store-contract/claims-and-leases.js";
import { account } from "./store-contract/fixtures.js";
import { idempotency } from "./store-contract/idempotency.js";
import { keys } from "./store-contract/keys.js";
import { requestPath } from "./store-contract/request-path.js";
import { retention } from "./store-contract/retention.js";
import { transitions } from "./store-contract/transitions.js";
import { webhooks } from "./store-contract/webhooks.js";

/**
 * Registers the store contract as a vitest `describe` block. `openStore` is called
 * before each case and must return a new, empty, migrated store; the suite closes it
 * after the case. The suite adds one account, `acc-1`, before each case.
 *
 * @example
 * ```ts
 * import { describeStoreContract } from "@genvideo/engine/testing";
 *
 * describeStoreContract("SQLite (in memory)", async () => (await openSqliteStore(":memory:")).store);
 * ```
 */
export function describeStoreContract(name: string, openStore: () => Promise<Store> | Store): void {
  describe(`Store contract: ${name}`, () => {
    let store: Store;
    beforeEach(async () => {
      store = await openStore();
      await store.transaction((tx) => tx.insertAccount(account("acc-1", "alice", 10)));
    });
    afterEach(async () => {
      await store.close();
    });

    const current = () => store;
    accountsAndLedger(current);
    keys(current);
    transitions(current);
    claimsAndLeases(current);
    idempotency(current);
    webhooks(current);
    requestPath(current);
    retention(current);
  });
}
