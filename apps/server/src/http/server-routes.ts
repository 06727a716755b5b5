/**
 * What the server adds around the engine's API: liveness and readiness for
 * orchestrators, the OpenAPI document and its human-readable reference.
 */
import { Hono } from "hono";
import { compress } from "hono/compress";
import type { Kysely } from "kysely";
import { pendingMigrations } from "../store/migrations.js";
import type { Database } from "../store/tables.js";
import { docsRoutes } from "./docs-page.js";

export interface ServerRoutesOptions {
  db: Kysely<Database>;
  openApiDocument: () => Record<string, unknown>;
  /** False once shutdown began: load balancers should stop sending traffic. */
  accepting: () => boolean;
}

/**
 * How long /readyz waits for the database before it answers "not ready": an
 * orchestrator's probe must get an answer, not a hang, when the database
 * does not answer (a partition drops packets and refuses nothing).
 */
const READINESS_TIMEOUT_MS = 1_000;

export function serverRoutes(options: ServerRoutesOptions): Hono {
  const app = new Hono();
  // Probes arriving while one check waits join it: a dead database does not collect a query per probe.
  let checking: Promise<string[]> | undefined;
  const pendingNow = () => {
    checking ??= pendingMigrations(options.db as Kysely<unknown>).finally(() => {
      checking = undefined;
    });
    return checking;
  };

  // Liveness: the process answers. Nothing else, so a slow database never gets it restarted.
  app.get("/healthz", (c) => c.json({ status: "ok" }));

  app.get("/readyz", async (c) => {
    if (!options.accepting()) return c.json({ status: "shutting_down" }, 503);
    try {
      const pending = await withTimeout(pendingNow(), READINESS_TIMEOUT_MS);
      if (pending.length > 0) return c.json({ status: "migrations_pending", pending }, 503);
      return c.json({ status: "ready" });
    } catch {
      // The reason goes to the log of whoever runs the check, not to the network.
      return c.json({ status: "database_unreachable" }, 503);
    }
  });

  // Someone who opens the server's address finds the reference, not a bare 404.
  app.get("/", (c) =>
    c.json(
      {
        message: "genvideo reference server: the API reference is at /docs.",
        docs: "/docs",
        openapi: "/openapi.json",
      },
      200,
      { Link: '</docs>; rel="service-doc", </openapi.json>; rel="service-desc"' },
    ),
  );

  // 110 KB of JSON, read by /docs on every visit: gzip makes it 13 KB.
  app.get("/openapi.json", compress(), (c) => c.json(options.openApiDocument()));

  docsRoutes(app);

  return app;
}

/** `work`'s value, or a rejection once `ms` have passed without one (`work` itself goes on). */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
