/** Tasks: the compare-and-set transitions and the worker's claim and sweep queries. */
import { ACTIVE_STATES, type TaskRecord, type TaskState } from "@genvideo/engine";
import { type QueryCreator, type Selectable, sql } from "kysely";
import { QueryGroup } from "./query-group.js";
import { TASK_ROW_COLUMNS, type TaskPatch, taskFromRow, taskPatchToRow, taskToRow } from "./rows.js";
import { slot } from "./sql-executor.js";
import { type Database, INLINE_REQUEST_BYTES, type TasksTable } from "./tables.js";

type TaskRow = Selectable<TasksTable>;
/** A row of `transitionAndClaimTasks`'s statement: a task claimed (all null when none was), and in one row the ids that changed. */
type EndedAndClaimed = TaskRow & { ended_ids: string[] | null };

/**
 * The worker's queries name states as literals, not parameters: SQLite uses a
 * partial index (`... WHERE state = 'processing'`) only when the query's own
 * condition is written the same way. With parameters, every tick read and
 * sorted every unfinished task, three times.
 */
const QUEUED = sql.lit("queued");
const PROCESSING = sql.lit("processing");
const ACTIVE = ACTIVE_STATES.map((state) => sql.lit(state));

export class KyselyTaskQueries extends QueryGroup {
  async getTask(id: string): Promise<TaskRecord | undefined> {
    const query = this.cached("getTask", () => this.selectTasks().where("id", "=", slot(0)), [id]);
    const row = await this.first<TaskRow>(query);
    return row && this.toTask(row);
  }

  /**
   * Tasks with their large requests joined, unless the store loads one when
   * it is first used (SQLite): then a status read never touches `task_requests`.
   */
  private selectTasks() {
    const tasks = this.db.selectFrom("tasks");
    if (this.context.loadRequest) return tasks.selectAll();
    return tasks
      .leftJoin("task_requests", "task_requests.task_id", "tasks.id")
      .selectAll("tasks")
      .select("task_requests.request as external_request");
  }

  private toTask(row: TaskRow & { external_request?: string | null }): TaskRecord {
    return taskFromRow(row, this.context.loadRequest);
  }

  /** A small request goes in the task row; a large one (images) in `task_requests`. */
  async insertTask(task: TaskRecord): Promise<void> {
    const request = JSON.stringify(task.request);
    // Told by its length first: a UTF-8 byte count of a request of images is a pass over megabytes.
    const inline =
      request.length <= INLINE_REQUEST_BYTES && Buffer.byteLength(request) <= INLINE_REQUEST_BYTES;
    const row: Partial<Record<(typeof TASK_ROW_COLUMNS)[number], unknown>> = taskToRow(task, task.accountId);
    row.request = inline ? request : null;
    const query = this.cached(
      "insertTask",
      () =>
        this.db
          .insertInto("tasks")
          .values(Object.fromEntries(TASK_ROW_COLUMNS.map((column, i) => [column, slot(i)])) as never),
      TASK_ROW_COLUMNS.map((column) => row[column] ?? null),
    );
    await this.changes(query);
    if (task.state === "queued") this.context.onWork?.();
    if (inline) return;
    await this.changes(
      this.cached(
        "insertTaskRequest",
        () => this.db.insertInto("task_requests").values({ task_id: slot(0), request: slot(1) }),
        [task.id, request],
      ),
    );
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
    const owned = leaseOwner !== undefined;
    // An empty patch still answers "is it in one of `from` (and ours)?", without writing.
    if (Object.keys(set).length === 0) {
      const row = await this.first(
        this.db
          .selectFrom("tasks")
          .select("id")
          .where("id", "=", id)
          .where("state", "in", [...from])
          .$if(owned, (q) => q.where("lease_owner", "=", leaseOwner!)),
      );
      return row !== undefined;
    }
    // Cached per shape: which columns change, how many states, lease or not.
    const columns = Object.keys(set).sort() as (keyof typeof set)[];
    const values = [...columns.map((column) => set[column]), id, ...from, ...(owned ? [leaseOwner] : [])];
    const query = this.cached(
      `transitionTask:${columns.join(",")}:${from.length}:${owned}`,
      () => {
        let next = columns.length;
        const update = this.db
          .updateTable("tasks")
          .set(Object.fromEntries(columns.map((c, i) => [c, slot(i)])) as never)
          .where("id", "=", slot(next++))
          .where(
            "state",
            "in",
            from.map(() => slot(next++)),
          );
        return owned ? update.where("lease_owner", "=", slot(next)) : update;
      },
      values,
    );
    return (await this.changes(query)) > 0;
  }

  /**
   * One UPDATE for them all: the patch is shared, each task's video key picked by a CASE on its id,
   * and the state and lease conditions are in the WHERE as in `transitionTask`, so each row is its
   * own compare-and-set. RETURNING says which ones won.
   */
  async transitionTasks(
    tasks: readonly { id: string; videoKey?: string }[],
    from: readonly TaskState[],
    patch: TaskPatch,
    leaseOwner?: string,
  ): Promise<string[]> {
    if (tasks.length === 0 || from.length === 0) return [];
    if (this.context.rowLocks && patch.videoKey === undefined)
      return this.transitionTasksByArrays(tasks, from, patch, leaseOwner);
    const { videoKey: _shared, ...shared } = patch;
    const set: Record<string, unknown> = taskPatchToRow(shared);
    const own = tasks.filter((task) => task.videoKey !== undefined);
    if (own.length > 0) {
      const cases = own.map((task) => sql`when ${task.id} then ${task.videoKey}`);
      // Tasks without a key of their own keep the patch's (or their current) one.
      const otherwise = patch.videoKey !== undefined ? sql`${patch.videoKey}` : sql.ref("video_key");
      set.video_key = sql`case ${sql.ref("id")} ${sql.join(cases, sql` `)} else ${otherwise} end`;
    } else if (patch.videoKey !== undefined) {
      set.video_key = patch.videoKey;
    }
    const rows = await this.rows<{ id: string }>(
      this.db
        .updateTable("tasks")
        .set(set as never)
        .where(
          "id",
          "in",
          tasks.map((task) => task.id),
        )
        .where("state", "in", [...from])
        .$if(leaseOwner !== undefined, (q) => q.where("lease_owner", "=", leaseOwner!))
        .returning("id"),
    );
    return rows.map((row) => row.id);
  }

  /**
   * PostgreSQL: `transitionTasks` with the ids and their own video keys as two arrays, so the
   * statement's shape does not depend on how many tasks there are: compiled once per patch shape
   * and prepared per connection, where a list of ids and a CASE made each batch a new statement
   * to build, parse and plan (a worker's completions, hundreds a second in a drain).
   */
  private async transitionTasksByArrays(
    tasks: readonly { id: string; videoKey?: string }[],
    from: readonly TaskState[],
    patch: TaskPatch,
    leaseOwner?: string,
  ): Promise<string[]> {
    const owned = leaseOwner !== undefined;
    const { columns, values } = this.arraysValues(tasks, from, patch, leaseOwner);
    const query = this.cached(
      `transitionTasksByArrays:${columns.join(",")}:${from.length}:${owned}`,
      () => ({ compile: () => arraysStatement(columns, from.length, owned).compile(this.db) }),
      values,
    );
    return (await this.rows<{ id: string }>(query)).map((row) => row.id);
  }

  /** `arraysStatement`'s changed columns, and its values in the order of its slots. */
  private arraysValues(
    tasks: readonly { id: string; videoKey?: string }[],
    from: readonly TaskState[],
    patch: TaskPatch,
    leaseOwner: string | undefined,
  ) {
    const set: Record<string, unknown> = taskPatchToRow(patch);
    const columns = Object.keys(set).sort();
    const values = [
      ...columns.map((column) => set[column]),
      tasks.map((task) => task.id),
      // A task without a key of its own keeps its current one.
      tasks.map((task) => task.videoKey ?? null),
      ...from,
      ...(leaseOwner !== undefined ? [leaseOwner] : []),
    ];
    return { columns, values };
  }

  async claimQueuedTasks(
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
    renderLimit: number = limit,
  ): Promise<TaskRecord[]> {
    if (limit <= 0) return [];
    // Compiled once: owner, lease end, time and both limits are filled in per claim.
    const query = this.cached(
      "claimQueuedTasks",
      () =>
        this.context.rowLocks
          ? this.lockingClaim(0)
          : this.db
              .updateTable("tasks")
              .set(claimedColumns(0))
              .where(
                "id",
                "in",
                this.db
                  .selectFrom(
                    this.db
                      .selectFrom(oldestQueued(this.db, 3).as("queued"))
                      .select(["id", rendersSoFar])
                      .as("candidates"),
                  )
                  .select("id")
                  .where("renders", "<=", slotNumber(4)),
              )
              .where("state", "=", "queued")
              .returningAll(),
      [owner, leaseExpiresAt, now, limit, renderLimit],
    );
    return this.claimedTasks(await this.rows<TaskRow>(query));
  }

  /**
   * PostgreSQL's claim, its values in the slots from `first` on (owner, lease end, time, limit,
   * render limit): the candidates are locked in a CTE, so the planner can never lock more rows than
   * the limit (as it may for `id in (subquery)`), and rows other workers hold are skipped, not
   * waited for. A window function may not share a level with FOR UPDATE: the count of renders is a
   * CTE of its own.
   */
  private lockingClaim(first: number) {
    return this.db
      .with("locked", (db) =>
        oldestQueued(db, first + 3)
          .forUpdate()
          .skipLocked(),
      )
      .with("candidates", (db) => db.selectFrom("locked").select(["id", rendersSoFar]))
      .updateTable("tasks")
      .set(claimedColumns(first))
      .from("candidates")
      .whereRef("tasks.id", "=", "candidates.id")
      .where("candidates.renders", "<=", slotNumber(first + 4))
      .returningAll("tasks");
  }

  /** Claimed rows as tasks, oldest first, with their large requests unless the store loads those itself. */
  private async claimedTasks(rows: TaskRow[]): Promise<TaskRecord[]> {
    if (this.context.loadRequest) return rows.map((row) => this.toTask(row)).sort(oldestFirst);
    // Claimed tasks are about to be rendered: without a loader, their large requests come with them.
    const external = rows.filter((row) => row.request === null).map((row) => row.id);
    if (external.length === 0) return rows.map((row) => this.toTask(row)).sort(oldestFirst);
    const requests = new Map(
      (
        await this.rows<{ task_id: string; request: string }>(
          this.db.selectFrom("task_requests").select(["task_id", "request"]).where("task_id", "in", external),
        )
      ).map((row) => [row.task_id, row.request]),
    );
    return rows
      .map((row) => this.toTask({ ...row, external_request: requests.get(row.id) ?? null }))
      .sort(oldestFirst);
  }

  /**
   * `transitionTasks` fenced by `owner`, then `claimQueuedTasks` for `owner`. PostgreSQL: one
   * statement, the transitions and the claim each a data-modifying CTE (their rows cannot meet:
   * the one ends processing tasks, the other takes queued ones), one of whose rows (there is one
   * at least) carries the ids that changed. SQLite: the two statements, which cost no round trip there.
   */
  async transitionAndClaimTasks(
    ending: {
      tasks: readonly { id: string; videoKey?: string }[];
      from: readonly TaskState[];
      patch: TaskPatch;
    },
    owner: string,
    limit: number,
    now: number,
    leaseExpiresAt: number,
    renderLimit: number = limit,
  ): Promise<{ transitioned: string[]; claimed: TaskRecord[] }> {
    const { tasks, from, patch } = ending;
    if (!this.context.rowLocks || tasks.length === 0 || from.length === 0 || limit <= 0) {
      const transitioned = await this.transitionTasks(tasks, from, patch, owner);
      return {
        transitioned,
        claimed: await this.claimQueuedTasks(owner, limit, now, leaseExpiresAt, renderLimit),
      };
    }
    const ended = this.arraysValues(tasks, from, patch, owner);
    const query = this.cached(
      `transitionAndClaimTasks:${ended.columns.join(",")}:${from.length}`,
      () => ({
        // The ids that changed come once, in one row: in every row, the driver parsed the
        // array once per task claimed (a tenth of a worker's CPU in a drain).
        compile: () =>
          sql<EndedAndClaimed>`with ended as (${arraysStatement(ended.columns, from.length, true)}),
            claimed as (${this.lockingClaim(ended.values.length)})
            select claimed.*, case when row_number() over () = 1 then ended_ids.ids end as ended_ids
            from (select coalesce(array_agg(id), '{}') as ids from ended) as ended_ids
            left join claimed on true`.compile(this.db),
      }),
      [...ended.values, owner, leaseExpiresAt, now, limit, renderLimit],
    );
    const rows = await this.rows<EndedAndClaimed>(query);
    return {
      transitioned: rows.find((row) => row.ended_ids !== null)?.ended_ids ?? [],
      claimed: await this.claimedTasks(rows.filter((row) => row.id !== null)),
    };
  }

  /**
   * One statement: the expiry is checked again by the UPDATE itself (on the newest row version in
   * PostgreSQL), so a lease renewed since the candidates were chosen is left alone.
   */
  async releaseExpiredLeases(now: number, limit: number): Promise<number> {
    if (limit <= 0) return 0;
    const released = {
      state: "queued",
      lease_owner: null,
      lease_expires_at: null,
      started_at: null,
      finish_at: null,
    } as const;
    const expired = (db: QueryCreator<Database>) =>
      db
        .selectFrom("tasks")
        .select("id")
        .where("state", "=", PROCESSING)
        .where("lease_expires_at", "<=", slot(0))
        .orderBy("lease_expires_at")
        .orderBy("id")
        .limit(slotNumber(1));
    // PostgreSQL: almost every tick finds no lease expired, and a plain read (no transaction begins
    // before the first write) says so in one round trip, where the UPDATE takes three (BEGIN, UPDATE, COMMIT).
    if (this.context.rowLocks) {
      const anyExpired = this.cached("anyExpiredLease", () => expired(this.db), [now, 1]);
      if ((await this.rows(anyExpired)).length === 0) return 0;
    }
    const query = this.cached(
      "releaseExpiredLeases",
      () =>
        this.context.rowLocks
          ? // PostgreSQL: as in the claim, candidates locked in a CTE, rows another worker is releasing skipped.
            this.db
              .with("candidates", (db) => expired(db).forUpdate().skipLocked())
              .updateTable("tasks")
              .set(released)
              .from("candidates")
              .whereRef("tasks.id", "=", "candidates.id")
              .where("tasks.state", "=", PROCESSING)
              .where("tasks.lease_expires_at", "<=", slot(0))
          : this.db
              .updateTable("tasks")
              .set(released)
              .where("id", "in", expired(this.db))
              .where("state", "=", PROCESSING)
              .where("lease_expires_at", "<=", slot(0)),
      [now, limit],
    );
    return this.changes(query);
  }

  async listOverdueTasks(now: number, limit: number): Promise<TaskRecord[]> {
    return this.listTasksUpTo("listOverdueTasks", "deadline_at", now, limit, (tasks) =>
      tasks.where("state", "in", ACTIVE),
    );
  }

  async listDueCompletions(now: number, limit: number): Promise<TaskRecord[]> {
    return this.listTasksUpTo("listDueCompletions", "finish_at", now, limit, (tasks) =>
      tasks
        .where("state", "=", PROCESSING)
        // Ready to end: rendered, or failed by its scenario (such tasks are never rendered).
        .where((eb) => eb.or([eb("video_key", "is not", null), eb("scenario_fail", "is not", null)])),
    );
  }

  /** The worker's sweeps: tasks `filter` keeps whose `time` is at or before `now`, earliest first; compiled once. */
  private async listTasksUpTo(
    name: string,
    time: "deadline_at" | "finish_at",
    now: number,
    limit: number,
    filter: (
      tasks: ReturnType<KyselyTaskQueries["selectTasks"]>,
    ) => ReturnType<KyselyTaskQueries["selectTasks"]>,
  ): Promise<TaskRecord[]> {
    const query = this.cached(
      name,
      () =>
        filter(this.selectTasks())
          .where(time, "<=", slotNumber(0))
          .orderBy(time)
          .orderBy("id")
          .limit(slotNumber(1)),
      [now, limit],
    );
    return (await this.rows<TaskRow>(query)).map((row) => this.toTask(row));
  }

  async countTasks(accountId?: string): Promise<number> {
    const row = await this.first<{ count: number | string }>(
      this.db
        .selectFrom("tasks")
        .select((eb) => eb.fn.countAll<number | string>().as("count"))
        .$if(accountId !== undefined, (q) => q.where("account_id", "=", accountId!)),
    );
    return Number(row?.count ?? 0);
  }
}

/**
 * How many of the candidates up to this one, in creation order, may need a render (no video yet, no
 * scenario failure): a claim takes those whose count is within its render limit, and so stops before
 * the first task one render too many. Computed over the limited candidates only, never the backlog.
 */
const rendersSoFar =
  sql<number>`sum(case when video_key is null and scenario_fail is null then 1 else 0 end) over (order by created_at, id)`.as(
    "renders",
  );

/** `transitionTasksByArrays`'s statement: its values are slots in the order that method lists them. */
function arraysStatement(columns: string[], states: number, owned: boolean) {
  let next = 0;
  const assignments = columns.map((column) => sql`${sql.ref(column)} = ${slot(next++)}`);
  const ids = slot(next++);
  const keys = slot(next++);
  const fromStates = Array.from({ length: states }, () => slot(next++));
  const lease = owned ? sql` and tasks.lease_owner = ${slot(next)}` : sql``;
  const videoKey = sql`video_key = coalesce(batch.video_key, tasks.video_key)`;
  return sql<{ id: string }>`update tasks set ${sql.join([...assignments, videoKey])}
    from unnest(${ids}::text[], ${keys}::text[]) as batch (id, video_key)
    where tasks.id = batch.id and tasks.state in (${sql.join(fromStates)})${lease}
    returning tasks.id`;
}

/** A slot where Kysely's types want a number (a LIMIT): the value is filled in per call. */
const slotNumber = (index: number) => slot(index) as unknown as number;

/** What a claim writes, its values in the slots from `first` on: owner, lease end, time. */
function claimedColumns(first: number) {
  return {
    state: "processing",
    lease_owner: slot(first),
    lease_expires_at: slotNumber(first + 1),
    updated_at: slotNumber(first + 2),
    started_at: slotNumber(first + 2),
  } as const;
}

/** The oldest queued tasks a claim may take, at most the value in slot `limit`. */
function oldestQueued(db: QueryCreator<Database>, limit: number) {
  return db
    .selectFrom("tasks")
    .select(["id", "created_at", "video_key", "scenario_fail"])
    .where("state", "=", QUEUED)
    .orderBy("created_at")
    .orderBy("id")
    .limit(slotNumber(limit));
}

const oldestFirst = (a: TaskRecord, b: TaskRecord): number =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
