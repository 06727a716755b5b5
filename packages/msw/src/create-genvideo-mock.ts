import { type Duration, type Engine, parseDuration, type TaskScenario } from "@genvideo/engine";
import { requestIdFor } from "@genvideo/engine/rules";
import { type HttpHandler, http } from "msw";
import { type ForcedError, ForcedErrors } from "./forced-errors.js";
import type { GenVideoMockOptions } from "./mock-options.js";
import { resolveMockOptions } from "./mock-options.js";
import { MockService } from "./mock-service.js";
import { headersObject, type RecordedRequest, readLoggedBody } from "./request-log.js";
import { createTaskControls, type MockTaskControls } from "./task-controls.js";
import type { RecordedWebhook, WebhookDeliveryMode } from "./webhook-deliveries.js";

/** Service time, as the mock keeps it. */
export interface GenVideoMockClock {
  /** The current service time. */
  now(): Date;
  /**
   * Moves service time forward and does everything that became due:
   * completions, scenario failures, timeouts, webhook attempts and retries.
   * Resolves when all of it (webhook deliveries included) is done.
   */
  advance(duration: Duration): Promise<Date>;
  /** Does what is due at the current service time, as `advance(0)`. */
  runDue(): Promise<void>;
}

/** The webhooks the mock sent. */
export interface GenVideoMockWebhooks {
  /** Every attempt, oldest first, with its signed headers and the receiver's answer. */
  readonly deliveries: readonly RecordedWebhook[];
  /** How attempts reach the receiver (see `webhookDelivery`). */
  readonly mode: WebhookDeliveryMode;
  /** The secret they are signed with, for `verifyWebhook`. */
  readonly secret: string;
  /** Attempts about one task. */
  forTask(taskId: string): RecordedWebhook[];
  /** Resolves when no attempt is under way. */
  settled(): Promise<void>;
}

/** Errors the mock answers with instead of the service, for testing retries. */
export interface GenVideoMockErrors {
  /** Queues a forced error for the next matching requests. */
  next(error: ForcedError): void;
  /** Forced responses still to come. */
  readonly remaining: number;
  clear(): void;
}

/** A mocked genvideo service. See `createGenVideoMock`. */
export interface GenVideoMock {
  /** For `setupServer(...mock.handlers)` or `setupWorker(...mock.handlers)`. */
  readonly handlers: HttpHandler[];
  /** The base URL it answers at (no trailing slash). */
  readonly baseUrl: string;
  /** The first accepted API key: pass it to your client. */
  readonly apiKey: string;
  /** The webhook signing secret (`whsec_...`). */
  readonly webhookSecret: string;
  readonly tasks: MockTaskControls;
  readonly clock: GenVideoMockClock;
  readonly webhooks: GenVideoMockWebhooks;
  /** Every request the code under test sent to the API and video URLs, oldest first. */
  readonly requests: readonly RecordedRequest[];
  readonly errors: GenVideoMockErrors;
  /**
   * Answers one request as the mocked service would (what the handlers do):
   * for use without msw, such as a client's `fetch` option.
   */
  fetch(request: Request): Promise<Response>;
  /** The engine behind the current state: admin commands (keys, credits), for what the controls don't cover. */
  readonly engine: Engine;
  /** A fresh service: no tasks, records, queued scenarios or forced errors; the clock back at its start. */
  reset(): Promise<void>;
}

/**
 * Mocks the genvideo API for msw: the handlers route requests into the
 * service's own engine (on an in-memory store and a virtual clock), so bodies,
 * errors, idempotency and webhooks are the real service's. Nothing waits on
 * real time: move service time with `clock.advance()`, or force outcomes.
 *
 * @example
 * ```ts
 * import { createGenVideoMock } from "@genvideo/msw";
 * import { setupServer } from "msw/node";
 *
 * const mock = createGenVideoMock({ baseUrl: "https://api.genvideo.test" });
 * const server = setupServer(...mock.handlers);
 * server.listen();
 *
 * const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey });
 * const { task_id } = await client.createTask({ prompt: "a red fox in snow" });
 * await mock.clock.advance("1m");
 * (await client.getStatus(task_id)).status; // "completed"
 * ```
 */
export function createGenVideoMock(options: GenVideoMockOptions = {}): GenVideoMock {
  const resolved = resolveMockOptions(options);
  const deliveries: RecordedWebhook[] = [];
  const requests: RecordedRequest[] = [];
  const queuedScenarios: TaskScenario[] = [];
  const forced = new ForcedErrors();
  let service = new MockService(resolved, deliveries);
  const { baseUrl, basePath } = resolved;

  async function answer(request: Request): Promise<Response> {
    const current = service;
    await current.ready;
    const url = request.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const queryStart = url.indexOf("?", pathStart);
    const fullPath = url.slice(pathStart, queryStart === -1 ? undefined : queryStart);
    const path = fullPath.slice(basePath.length) || "/";
    const method = request.method;
    const hasBody = method !== "GET" && method !== "HEAD";
    const bytes = hasBody ? await request.arrayBuffer() : undefined;
    const log = (status: number) =>
      requests.push({
        method,
        url,
        path,
        headers: headersObject(request.headers),
        body: readLoggedBody(bytes),
        status,
        at: new Date(current.clock.now()),
      });

    const forcedResponse = forced.take(method, path);
    if (forcedResponse) {
      log(forcedResponse.status);
      return forcedResponse;
    }
    if (path.startsWith("/videos/")) {
      const response = await current.videos.serve(request, path, current.clock.now(), async (taskId) => {
        const task = await current.getTask(taskId);
        return task?.state === "completed" ? task.updatedAt : undefined;
      });
      // Outside the engine's API, like the server's videos: the request id is set here, as there.
      response.headers.set("X-Request-Id", requestIdFor(request.headers.get("x-request-id")));
      log(response.status);
      return response;
    }

    // Due work first, so the answer reflects service time now. Webhook attempts it starts are not
    // awaited, as on the real service: the receiver may itself be calling this API.
    await current.tick();
    const engineUrl =
      basePath === "" ? url : `${url.slice(0, pathStart)}${url.slice(pathStart + basePath.length)}`;
    const response = await current.engine.app.fetch(
      new Request(engineUrl, { method, headers: request.headers, ...(hasBody ? { body: bytes } : {}) }),
    );
    log(response.status);
    if (method === "POST" && path === "/api/gen/generate" && response.status === 200) {
      const created = (await response.clone().json()) as { task_id: string };
      if (!current.knows(created.task_id)) await current.adopt(created.task_id, queuedScenarios.shift());
    }
    return response;
  }

  const handlers = [
    http.all(
      ({ request }) => request.url.startsWith(`${baseUrl}/`),
      ({ request }) => answer(request),
    ),
  ];

  const clock: GenVideoMockClock = {
    now: () => new Date(service.clock.now()),
    async advance(duration) {
      const milliseconds = parseDuration(duration);
      const current = service;
      await current.ready;
      current.clock.advance(milliseconds);
      current.markDirty();
      await current.settle();
      return new Date(current.clock.now());
    },
    async runDue() {
      await clock.advance(0);
    },
  };

  const webhooks: GenVideoMockWebhooks = {
    deliveries,
    mode: resolved.webhookDelivery,
    secret: resolved.webhookSecret,
    forTask: (taskId) => deliveries.filter((delivery) => delivery.taskId === taskId),
    settled: () => service.engine.idle(),
  };

  const errors: GenVideoMockErrors = {
    next: (error) => forced.add(error),
    get remaining() {
      return forced.remaining;
    },
    clear: () => forced.clear(),
  };

  return {
    handlers,
    baseUrl,
    apiKey: resolved.apiKeys[0]!,
    webhookSecret: resolved.webhookSecret,
    tasks: createTaskControls(() => service, queuedScenarios),
    clock,
    webhooks,
    requests,
    errors,
    fetch: answer,
    get engine() {
      return service.engine;
    },
    async reset() {
      const previous = service;
      service = new MockService(resolved, deliveries);
      deliveries.length = 0;
      requests.length = 0;
      queuedScenarios.length = 0;
      forced.clear();
      // Attempts of the old life are cut short; their records would only confuse the next test.
      await previous.engine.drain().catch(() => undefined);
      deliveries.length = 0;
      await service.ready;
    },
  };
}
