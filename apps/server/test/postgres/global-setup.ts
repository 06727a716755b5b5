/**
 * Starts one throwaway PostgreSQL cluster for every PostgreSQL suite and hands
 * its URL to them (`inject("postgresUrl")`). Without PostgreSQL on the
 * machine the suites are skipped with one line saying how to enable them,
 * except under CI=true, where a missing or broken PostgreSQL fails the run.
 * GENVIDEO_TEST_POSTGRES_URL points the suites at a server of your own
 * instead (a role that may create databases).
 */
import type { TestProject } from "vitest/node";
import { postgresForTests } from "../../src/testing/postgres-cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser URL of the test cluster, or null when the PostgreSQL suites are skipped. */
    postgresUrl: string | null;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const postgres = await postgresForTests();
  project.provide("postgresUrl", postgres?.url ?? null);
  return postgres ? () => postgres.stop() : undefined;
}
