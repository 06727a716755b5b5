/**
 * Service time that survives restarts. With GENVIDEO_TIME_SCALE=600 the
 * service runs ten minutes ahead per real second, and every stored time
 * (deadlines, leases, retry times) is in that service time. Restarting from
 * wall time would move the clock backwards: stored deadlines would lie far
 * in the future and a task due to time out would wait for hours. So a
 * process starts its clock at the latest of wall time and the latest service
 * time the database has seen, and keeps recording that high-water mark.
 *
 * The engine's `systemClock(scale, epoch)` cannot express this: at scale 1 it
 * is wall time exactly, with no room for an offset. Elapsed time comes from
 * `performance.now()`, which never steps back when the wall clock is
 * adjusted. Times are whole milliseconds: they go into integer columns.
 */
import type { Clock } from "@genvideo/engine";
import { type Kysely, sql } from "kysely";
import type { Database } from "../store/tables.js";

const HIGH_WATER = "service_clock_high_water_ms";

export interface ServiceClock extends Clock {
  readonly scale: number;
  /** Records the current service time, so the next process starts no earlier. */
  persist(): Promise<void>;
}

export async function openServiceClock(db: Kysely<Database>, scale: number): Promise<ServiceClock> {
  const start = Math.max(Date.now(), await latestServiceTime(db));
  const startedAt = performance.now();
  const now = () => Math.floor(start + (performance.now() - startedAt) * scale);
  return {
    scale,
    now,
    async persist() {
      const value = String(now());
      await db
        .insertInto("service_state")
        .values({ name: HIGH_WATER, value })
        .onConflict((conflict) => conflict.column("name").doUpdateSet({ value }))
        .execute();
    },
  };
}

/**
 * The latest service time anything was written at: the recorded high-water
 * mark, or (after a crash between two records) the newest row, whichever is later.
 */
async function latestServiceTime(db: Kysely<Database>): Promise<number> {
  const recorded = await db
    .selectFrom("service_state")
    .select("value")
    .where("name", "=", HIGH_WATER)
    .executeTakeFirst();
  const newest = await db
    .selectNoFrom((eb) => [
      eb.selectFrom("tasks").select(sql<number | string | null>`max(updated_at)`.as("m")).as("tasks"),
      eb
        .selectFrom("ledger_entries")
        .select(sql<number | string | null>`max(created_at)`.as("m"))
        .as("ledger"),
      eb
        .selectFrom("webhook_attempts")
        .select(sql<number | string | null>`max(started_at)`.as("m"))
        .as("attempts"),
      eb.selectFrom("api_keys").select(sql<number | string | null>`max(created_at)`.as("m")).as("keys"),
    ])
    .executeTakeFirstOrThrow();
  const candidates = [recorded?.value, newest.tasks, newest.ledger, newest.attempts, newest.keys]
    .map((value) => Number(value ?? 0))
    .filter(Number.isFinite);
  return Math.max(0, ...candidates);
}
