/**
 * Starts one throwaway PostgreSQL cluster for every PostgreSQL suite and hands
 * its URL to them (`inject("postgresUrl")`). Without PostgreSQL on the
 * machine the suites are skipped with one line saying how to enable them,
 * except under CI=true, where a missing or broken PostgreSQL fails the run.
 * GENVIDEO_TEST_POSTGRES_URL points the suites at a server of your own
 * instead (a role that may create databases).
 */
import type { TestProject } from "vitest/node";
import {
  findPostgresBinaries,
  POSTGRES_HOW_TO,
  type PostgresCluster,
  startPostgresCluster,
} from "../../src/testing/postgres-cluster.js";

declare module "vitest" {
  export interface ProvidedContext {
    /** A superuser URL of the test cluster, or null when the PostgreSQL suites are skipped. */
    postgresUrl: string | null;
  }
}

export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  const external = process.env.GENVIDEO_TEST_POSTGRES_URL?.trim();
  if (external) {
    project.provide("postgresUrl", external);
    return undefined;
  }
  if (!findPostgresBinaries()) {
    if (process.env.CI === "true")
      throw new Error(`CI=true but no PostgreSQL server to test against: ${POSTGRES_HOW_TO}`);
    console.warn(`PostgreSQL suites skipped: ${POSTGRES_HOW_TO}.`);
    project.provide("postgresUrl", null);
    return undefined;
  }
  const cluster: PostgresCluster = await startPostgresCluster();
  project.provide("postgresUrl", cluster.url);
  return () => cluster.stop();
}
