// The engine's in-memory store (the msw mock's) against the same contract as SQLite:
// both hosts then run the engine on identical storage semantics.
import { createMemoryStore } from "@genvideo/engine";
import { describeStoreContract } from "./store-contract.js";

describeStoreContract("engine memory store", async () => createMemoryStore());
