/**
 * What the PostgreSQL suites share: the test cluster from the global setup
 * and a fresh database per test, so tests never see each other's rows.
 */
import { describe, inject } from "vitest";
import { createDatabaseOn } from "../../src/testing/postgres-cluster.js";

/** The cluster's superuser URL, or null when the suites are skipped (no PostgreSQL here). */
export function postgresUrl(): string | null {
  return inject("postgresUrl");
}

/** `describe` that skips itself when there is no PostgreSQL (the global setup said why, once). */
export const describePostgres: typeof describe.skipIf extends (c: boolean) => infer D ? D : never =
  describe.skipIf(postgresUrl() === null);

let counter = 0;

/** A new empty database on the test cluster; its URL. */
export function freshDatabase(): Promise<string> {
  const url = postgresUrl();
  if (url === null) throw new Error("no PostgreSQL test cluster");
  return createDatabaseOn(url, `t_${process.pid}_${++counter}_${Math.random().toString(36).slice(2, 8)}`);
}
