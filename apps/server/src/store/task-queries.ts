/** Tasks: the compare-and-set transitions and the worker's claim and sweep queries. */
import type { TaskRecord, TaskState } from "@genvideo/engine";
import type { Kysely } from "kysely";
import { taskFromRow, taskPatchToRow, taskToRow } from "./rows.js";
import type { Database } from "./tables.js";

type TaskPatch = Partial<Omit<TaskRecord, "id" | "accountId" | "request">>;

const UNFINISHED: readonly TaskState[] = ["queued", "processing"];

export class KyselyTaskQueries {
  readonly #db: Kysely<Database>;
  readonly #rowLocks: boolean;

  constructor(db: Kysely<Database>, rowLocks: boolean) {
    this.#db = db;
    this.#rowLocks = rowLocks;
  }

  async getTask(id: string): Promise<TaskRecord | undefined> {
    const row = await this.#db.selectFrom("tasks").selectAll().where("id", "=", id).executeTakeFirst();
    return row && taskFromRow(row);
  }

  async insertTask(task: TaskRecord): Promise<void> {
    await this.#db.insertInto("tasks").values(taskToRow(task)).execute();
  }

  /** The state (and lease) condition is in the UPDATE itself: the database decides which racer wins. */
  async transitionTask(
    id: string,
    from: readonly TaskState[],
    patch: TaskPatch,
    leaseOwner?: string,
  ): Promise<boolean> {
    if (from.length === 0) return false;
    const set = taskPatchToRow(patch);
    let query = this.#db
      .updateTable("tasks")
      .where("id", "=", id)
      .where("state", "in", [...from]);
    if (leaseOwner !== undefined) query = query.where("lease_owner", "=", leaseOwner);
    // An empty patch still answers "is it in one of `from`?", without writing.
    if (Object.keys(set).length === 0) {
      const row = await this.#db
        .selectFrom("tasks")
        .select("id")
        .where("id", "=", id)
        .where("state", "in", [...from])
        .$if(leaseOwner !== undefined, (q) => q.where("lease_owner", "=", leaseOwner!))
        .executeTakeFirst();
      return row !== undefined;
    }
    const result = await query.set(set).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async claimQueuedTasks(
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
  ): Promise<TaskRecord[]> {
    if (limit <= 0) return [];
    const candidates = this.#db
      .selectFrom("tasks")
      .select("id")
      .where("state", "=", "queued")
      .orderBy("created_at")
      .orderBy("id")
      .limit(limit)
      .$if(this.#rowLocks, (q) => q.forUpdate().skipLocked());
    const rows = await this.#db
      .updateTable("tasks")
      .set({
        state: "processing",
        lease_owner: owner,
        lease_expires_at: leaseExpiresAt,
        updated_at: now,
        started_at: now,
      })
      .where("id", "in", candidates)
      .where("state", "=", "queued")
      .returningAll()
      .execute();
    return rows.map(taskFromRow).sort(oldestFirst);
  }

  async listExpiredLeases(now: number, limit: number): Promise<TaskRecord[]> {
    const rows = await this.#db
      .selectFrom("tasks")
      .selectAll()
      .where("state", "=", "processing")
      .where("lease_expires_at", "<=", now)
      .orderBy("lease_expires_at")
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map(taskFromRow);
  }

  async listOverdueTasks(now: number, limit: number): Promise<TaskRecord[]> {
    const rows = await this.#db
      .selectFrom("tasks")
      .selectAll()
      .where("state", "in", [...UNFINISHED])
      .where("deadline_at", "<=", now)
      .orderBy("deadline_at")
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map(taskFromRow);
  }

  async listDueCompletions(now: number, limit: number): Promise<TaskRecord[]> {
    const rows = await this.#db
      .selectFrom("tasks")
      .selectAll()
      .where("state", "=", "processing")
      // Ready to end: rendered, or failed by its scenario (such tasks are never rendered).
      .where((eb) => eb.or([eb("video_key", "is not", null), eb("scenario_fail", "is not", null)]))
      .where("finish_at", "<=", now)
      .orderBy("finish_at")
      .orderBy("id")
      .limit(limit)
      .execute();
    return rows.map(taskFromRow);
  }

  async countTasks(accountId?: string): Promise<number> {
    const row = await this.#db
      .selectFrom("tasks")
      .select((eb) => eb.fn.countAll<number | string>().as("count"))
      .$if(accountId !== undefined, (q) => q.where("account_id", "=", accountId!))
      .executeTakeFirstOrThrow();
    return Number(row.count);
  }
}

const oldestFirst = (a: TaskRecord, b: TaskRecord): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
