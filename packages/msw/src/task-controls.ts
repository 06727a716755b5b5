import {
  type Duration,
  type ForcedOutcome,
  parseDuration,
  type TaskRecord,
  type TaskScenario,
  type TaskState,
} from "@genvideo/engine";
import {
  FAILURE_CATALOG,
  type FailureCode,
  type FinishFailureCode,
  type GenerationRequest,
} from "@genvideo/schema";
import type { MockService } from "./mock-service.js";

/** A task of the mock, as tests look at it. */
export interface MockTask {
  id: string;
  status: TaskState;
  /** The failure code once failed (`UNSAFE_CONTENT`, `GENERATION_FAILED`, `TIMEOUT`), else null. */
  failureCode: FailureCode | null;
  /** The validated request as the service stored it. */
  request: GenerationRequest;
  callbackUrl: string | null;
  /** Credits charged at creation; `refunded` says whether they came back. */
  cost: number;
  refunded: boolean;
  createdAt: Date;
  /** When generation ends on its own (service time); null when it never will (`[[timeout]]`). */
  finishesAt: Date | null;
  deadlineAt: Date;
  completedAt: Date | null;
}

/** How a task created later should end. Default: complete after `timing.generation`. */
export interface MockScenario {
  /** Fail with this code (after `delay`); `TIMEOUT` never finishes and times out at the deadline. */
  fail?: FailureCode;
  /** Service time from creation to the outcome. Default `timing.generation`. */
  delay?: Duration;
}

/** Commands over the mock's tasks. Each one also runs what it makes due (webhooks included). */
export interface MockTaskControls {
  /** Every task created through the mock, oldest first. */
  list(): Promise<MockTask[]>;
  get(taskId: string): Promise<MockTask | undefined>;
  /** Completes a queued or processing task now, with its video. */
  complete(taskId: string): Promise<MockTask>;
  /** Fails a queued or processing task now with `code` (default `GENERATION_FAILED`), refunding as the service does. */
  fail(taskId: string, code?: FailureCode): Promise<MockTask>;
  /** Times a queued or processing task out now: `failed` with `TIMEOUT`, credits refunded. */
  timeout(taskId: string): Promise<MockTask>;
  /** Queues a scenario for the next task created (one per call, in order), whatever its prompt says. */
  next(scenario: MockScenario): void;
}

/** Turns a scenario into the engine's form, checking it. */
function engineScenario(scenario: MockScenario): TaskScenario {
  const delayMs = scenario.delay === undefined ? undefined : parseDuration(scenario.delay);
  const result: TaskScenario = delayMs === undefined ? {} : { delayMs };
  if (scenario.fail === undefined) return result;
  if (!Object.hasOwn(FAILURE_CATALOG, scenario.fail))
    throw new RangeError(`unknown failure code ${String(scenario.fail)}`);
  // As the code's prompt marker does: the deadline's code never finishes, the others fail at the finish.
  if (FAILURE_CATALOG[scenario.fail].marker === "[[timeout]]") result.timeout = true;
  else result.fail = scenario.fail as FinishFailureCode;
  return result;
}

function mockTaskOf(task: TaskRecord): MockTask {
  return {
    id: task.id,
    status: task.state,
    failureCode: task.failureCode,
    request: task.request,
    callbackUrl: task.callbackUrl,
    cost: task.cost,
    refunded: task.refundedAt !== null,
    createdAt: new Date(task.createdAt),
    finishesAt: task.finishAt === null ? null : new Date(task.finishAt),
    deadlineAt: new Date(task.deadlineAt),
    completedAt: task.completedAt === null ? null : new Date(task.completedAt),
  };
}

export function createTaskControls(service: () => MockService, queued: TaskScenario[]): MockTaskControls {
  /*
   * The engine ends the task through its own transitions (refund rules, the
   * webhook outbox, the compare-and-set that refuses a task already ended);
   * settling then delivers the webhook before the control resolves.
   */
  async function force(taskId: string, outcome: ForcedOutcome): Promise<MockTask> {
    const current = service();
    await current.ready;
    await current.settle();
    if (!current.knows(taskId)) throw new Error(`The mock has no task ${taskId}`);
    const ended = await current.engine.forceOutcome(taskId, outcome);
    current.markDirty();
    await current.settle();
    return mockTaskOf((await current.getTask(taskId)) ?? ended);
  }

  return {
    async list() {
      const current = service();
      await current.ready;
      await current.tick();
      const tasks = await Promise.all(current.taskIds.map((id) => current.getTask(id)));
      return tasks.filter((task) => task !== undefined).map(mockTaskOf);
    },
    async get(taskId) {
      const current = service();
      await current.ready;
      await current.tick();
      if (!current.knows(taskId)) return undefined;
      const task = await current.getTask(taskId);
      return task && mockTaskOf(task);
    },
    complete: (taskId) => force(taskId, { complete: true }),
    fail(taskId, code = "GENERATION_FAILED") {
      const { fail, timeout } = engineScenario({ fail: code });
      return force(taskId, timeout ? { timeout } : { fail: fail! });
    },
    timeout: (taskId) => force(taskId, { timeout: true }),
    next(scenario) {
      queued.push(engineScenario(scenario));
    },
  };
}
