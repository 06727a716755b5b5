/**
 * `@genvideo/engine/testing`: the conformance suite every `Store` runs against
 * itself, for vitest. vitest is an optional peer dependency: only this entry needs it.
 */

export { taskRecord } from "./store-contract/fixtures.js";
export { describeStoreContract } from "./store-contract.js";
