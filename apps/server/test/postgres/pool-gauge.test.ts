// The PostgreSQL pool's gauges on a process that does nothing: every scrape reads the queue from the
// database through that pool, and that read is not a query waiting for a connection.
import { expect, it } from "vitest";
import { metricsUrlOf, parseSamples, sampleValue } from "../support/metrics.js";
import { describePostgres, freshDatabase } from "../support/postgres.js";
import { FAST_SERVICE_ENV } from "../support/server-process.js";
import { serverSet } from "../support/use-server.js";

const servers = serverSet();

describePostgres("the pool gauges on PostgreSQL", () => {
  it("read no query waiting on an idle process, scrape after scrape", { timeout: 120_000 }, async () => {
    const url = await freshDatabase();
    const env = { ...FAST_SERVICE_ENV, GENVIDEO_DATABASE_URL: url, GENVIDEO_METRICS_PORT: "0" };
    for (const role of ["api", "worker"]) {
      const server = await servers.start({ startTimeoutMs: 60_000, env: { ...env, GENVIDEO_ROLE: role } });
      for (let scrape = 0; scrape < 5; scrape++) {
        const samples = parseSamples(await (await fetch(metricsUrlOf(server))).text());
        expect(sampleValue(samples, "genvideo_postgres_pool_waiting"), `${role}, scrape ${scrape}`).toBe(0);
        // The pool is open (the scrape's queue read used it), and nothing holds it now.
        expect(
          sampleValue(samples, "genvideo_postgres_pool_connections", { state: "idle" }) +
            sampleValue(samples, "genvideo_postgres_pool_connections", { state: "in_use" }),
        ).toBeGreaterThan(0);
      }
    }
  });
});
