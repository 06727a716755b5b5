/**
 * Rate-limit buckets shared by every API process on one PostgreSQL: one
 * bucket per API key and endpoint group for the whole cluster, however many
 * processes the requests land on.
 *
 * Cost per request: one round trip and one single-row upsert, outside the
 * request's transaction, run as the store runs its statements
 * (statement-run.ts). The table is UNLOGGED (no WAL, no fsync: a crash
 * empties it, which only hands every key a full bucket), the update changes
 * no indexed column so it stays on its page (HOT), and time is PostgreSQL's
 * clock, the same for every machine. Requests of one key queue on its row
 * for the length of that statement only.
 */
import {
  type RateLimitDecision,
  type RateLimiter,
  RateLimiterHeaders,
  rateLimitDecision,
} from "@genvideo/engine";
import type pg from "pg";
import type { DatabaseReachability } from "../store/database-reachability.js";
import { columnParser } from "../store/postgres-store.js";
import { RowShapes, runPooledStatement } from "../store/statement-run.js";

const TAKE = `
insert into rate_limit_buckets as b (bucket, tokens, updated_at, allowed)
select $1, $2::float8 - 1, floor(extract(epoch from clock_timestamp()) * 1000)::bigint, true
on conflict (bucket) do update set
  allowed = least($2::float8, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * $3::float8) >= 1,
  tokens = least($2::float8, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * $3::float8)
    - case when least($2::float8, b.tokens + greatest(0, excluded.updated_at - b.updated_at) * $3::float8) >= 1
      then 1 else 0 end,
  updated_at = greatest(b.updated_at, excluded.updated_at)
returning tokens, allowed`;

export class PostgresRateLimiter extends RateLimiterHeaders implements RateLimiter {
  readonly name: string;
  readonly perMinute: number;
  readonly #pool: pg.Pool;
  readonly #reachability: DatabaseReachability;
  /** The take's row, described at its first run (statement-run.ts), as the store's statements are. */
  readonly #shapes = new RowShapes(columnParser);

  /** `reachability`: a database out of reach answers 503, as the store's transactions do. */
  constructor(pool: pg.Pool, name: string, perMinute: number, reachability: DatabaseReachability) {
    super();
    this.#pool = pool;
    this.#reachability = reachability;
    this.name = name;
    this.perMinute = perMinute;
  }

  async take(key: string): Promise<RateLimitDecision> {
    const { rows } = await this.#reachability.serve(() =>
      runPooledStatement<{ tokens: number; allowed: boolean }>(
        this.#pool,
        this.#shapes,
        "genvideo_rate_limit_take",
        TAKE,
        [`${this.name}:${key}`, this.perMinute, this.perMinute / 60_000],
      ),
    );
    const row = rows[0]!;
    return rateLimitDecision(row.tokens, row.allowed, this.perMinute);
  }
}
