/**
 * Service time shared by every process on one PostgreSQL database. Deadlines,
 * leases and retry times written by one process are read by all the others,
 * so they must all tell the same time: service time is a line through one
 * stored point,
 *
 *   now = serviceEpoch + (databaseTime - realEpoch) * scale,
 *
 * where `databaseTime` is PostgreSQL's own clock (read once at start, then
 * advanced with `performance.now()`), so the clocks of the machines running
 * the processes do not matter. The point and the scale are stored in
 * `service_state` and every process writes a heartbeat.
 *
 * - Joining a running cluster (a heartbeat within `LIVE_WITHIN_MS`): the
 *   process adopts the stored point, and refuses to start when its
 *   GENVIDEO_TIME_SCALE differs from the stored scale.
 * - Starting a cluster that was down: a new point at the later of the
 *   database's time and the last service time seen, as the SQLite clock does
 *   at every start (time never runs backwards, nor fast while nobody runs).
 *
 * A one-shot admin command (`accounts create`, `keys create`...) only reads:
 * it takes the cluster's time and scale, and writes neither point nor
 * heartbeat, so servers started next are never held to the scale the command
 * happened to be run with (`readSharedServiceClock`).
 */
import { type Kysely, sql } from "kysely";
import { ConfigError } from "../config.js";
import type { Database } from "../store/tables.js";
import type { ServiceClock } from "./service-clock.js";

const EPOCH = "service_clock_epoch";
const HEARTBEAT = "service_clock_heartbeat";
/** A heartbeat younger than this (real ms) means other processes are running on the stored time. */
export const LIVE_WITHIN_MS = 15_000;

interface Epoch {
  scale: number;
  realEpochMs: number;
  serviceEpochMs: number;
}

export async function openSharedServiceClock(db: Kysely<Database>, scale: number): Promise<ServiceClock> {
  const epoch = await db.transaction().execute(async (trx) => {
    // One process at a time decides the epoch: two first starts must not pick two.
    await sql`select pg_advisory_xact_lock(${sql.lit(0x67656e636c6f636bn)})`.execute(trx);
    const realNow = await databaseTime(trx);
    const stored = await storedClock(trx, realNow);
    if (stored?.live) {
      if (stored.epoch.scale !== scale) {
        throw new ConfigError(
          `GENVIDEO_TIME_SCALE is ${scale} but the processes running on this database use ${stored.epoch.scale}: start every process with the same GENVIDEO_TIME_SCALE (or stop them all to change it)`,
        );
      }
      return stored.epoch;
    }
    const next = restartedEpoch(stored, realNow, scale);
    await upsert(trx, EPOCH, JSON.stringify(next));
    await upsert(trx, HEARTBEAT, String(realNow));
    return next;
  });
  const { now, realNow } = await clockFrom(db, epoch);
  return {
    scale,
    now,
    async persist() {
      await upsert(db, HEARTBEAT, String(Math.floor(realNow())));
    },
  };
}

/**
 * The cluster's service time for a one-shot command, written nowhere: the
 * running processes' time and scale, or, when none runs, the time and scale
 * the next start will take up (`scale` only when the database never had a
 * clock). `persist()` does nothing.
 */
export async function readSharedServiceClock(db: Kysely<Database>, scale: number): Promise<ServiceClock> {
  const realNow = await databaseTime(db);
  const stored = await storedClock(db, realNow);
  const epoch = stored?.live ? stored.epoch : restartedEpoch(stored, realNow, stored?.epoch.scale ?? scale);
  const { now } = await clockFrom(db, epoch);
  return { scale: epoch.scale, now, persist: async () => undefined };
}

interface StoredClock {
  epoch: Epoch;
  /** Real time of the last heartbeat (NaN when none was written). */
  heartbeat: number;
  /** Some process wrote a heartbeat within `LIVE_WITHIN_MS`. */
  live: boolean;
}

async function storedClock(db: Kysely<Database>, realNow: number): Promise<StoredClock | undefined> {
  const rows = await db
    .selectFrom("service_state")
    .select(["name", "value"])
    .where("name", "in", [EPOCH, HEARTBEAT])
    .execute();
  const stored = rows.find((row) => row.name === EPOCH);
  if (!stored) return undefined;
  const heartbeat = Number(rows.find((row) => row.name === HEARTBEAT)?.value ?? Number.NaN);
  return { epoch: JSON.parse(stored.value) as Epoch, heartbeat, live: realNow - heartbeat < LIVE_WITHIN_MS };
}

/** The point a cluster that was down starts from: never before the last service time seen. */
function restartedEpoch(stored: StoredClock | undefined, realNow: number, scale: number): Epoch {
  const lastServiceTime = stored
    ? stored.epoch.serviceEpochMs +
      (Math.max(stored.heartbeat, stored.epoch.realEpochMs) - stored.epoch.realEpochMs) * stored.epoch.scale
    : 0;
  return { scale, realEpochMs: realNow, serviceEpochMs: Math.max(realNow, Math.floor(lastServiceTime)) };
}

async function clockFrom(
  db: Kysely<Database>,
  epoch: Epoch,
): Promise<{ now: () => number; realNow: () => number }> {
  const realStart = await databaseTime(db);
  const startedAt = performance.now();
  const realNow = () => realStart + (performance.now() - startedAt);
  return {
    realNow,
    now: () => Math.floor(epoch.serviceEpochMs + (realNow() - epoch.realEpochMs) * epoch.scale),
  };
}

/** PostgreSQL's clock in ms: one time source for processes on machines whose clocks may differ. */
async function databaseTime(db: Kysely<Database>): Promise<number> {
  const { rows } = await sql<{
    now: number | string;
  }>`select floor(extract(epoch from clock_timestamp()) * 1000)::bigint as now`.execute(db);
  return Number(rows[0]?.now);
}

async function upsert(db: Kysely<Database>, name: string, value: string): Promise<void> {
  await db
    .insertInto("service_state")
    .values({ name, value })
    .onConflict((conflict) => conflict.column("name").doUpdateSet({ value }))
    .execute();
}
