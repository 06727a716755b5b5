import { createServer, type Server, type Socket } from "node:net";
import { Kysely, PostgresDialect } from "kysely";
import { afterEach, describe, expect, it } from "vitest";
import { createPostgresPool } from "../store/postgres-store.js";
import type { Database } from "../store/tables.js";
import { listenOnLoopback } from "../testing/loopback.js";
import { serverRoutes } from "./server-routes.js";

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A "database" that accepts connections and never says a word: what a process sees of one that hangs. */
async function silentDatabase(): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  const port = await listenOnLoopback(server);
  return {
    url: `postgres://genvideo@127.0.0.1:${port}/genvideo`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("/readyz and /healthz when the database does not answer", () => {
  it("says not ready within about a second, and liveness does not ask the database", async () => {
    // Connects are given 5 s, far longer than readiness waits: only its own bound can answer in time.
    const database = await silentDatabase();
    const db = new Kysely<Database>({
      dialect: new PostgresDialect({ pool: createPostgresPool(database.url, { deadPathMs: 5_000 }) }),
    });
    cleanups.push(() => db.destroy().catch(() => undefined));
    // Runs first: the connect in flight then fails at once instead of at its timeout.
    cleanups.push(database.close);
    const app = serverRoutes({ db, openApiDocument: () => ({}), accepting: () => true });

    const startedAt = performance.now();
    const probes = await Promise.all([app.request("/readyz"), app.request("/readyz")]);
    const elapsed = performance.now() - startedAt;
    for (const response of probes) {
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ status: "database_unreachable" });
    }
    expect(elapsed).toBeGreaterThanOrEqual(900);
    expect(elapsed).toBeLessThan(2_000);

    const alive = await app.request("/healthz");
    expect(alive.status).toBe(200);
  });
});
