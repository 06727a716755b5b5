import { type Kysely, PostgresAdapter, sql } from "kysely";
import type { Migration } from "kysely/migration";

/**
 * PostgreSQL only: the rate-limit buckets every API process shares (see
 * rate-limiter/postgres-rate-limiter.ts). UNLOGGED: losing them in a crash only refills
 * every bucket, and no request waits for a WAL flush to spend a token.
 */
export const rateLimitBuckets: Migration = {
  async up(db: Kysely<unknown>) {
    if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
    await sql`create unlogged table rate_limit_buckets (
      bucket text primary key,
      tokens double precision not null,
      updated_at bigint not null,
      allowed boolean not null
    ) with (fillfactor = 50)`.execute(db);
  },
};
