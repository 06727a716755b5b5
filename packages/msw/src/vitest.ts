import { type SetupServer, setupServer } from "msw/node";
import { afterAll, afterEach, beforeAll } from "vitest";
import { createGenVideoMock, type GenVideoMock } from "./create-genvideo-mock.js";
import type { GenVideoMockOptions } from "./mock-options.js";

/** Options of `setupGenVideoMock`: the mock's, plus what msw does with requests no handler takes. */
export interface SetupGenVideoMockOptions extends GenVideoMockOptions {
  /** Passed to `server.listen()`. Default `"error"`: a request your suite did not expect fails loudly. */
  onUnhandledFrame?: "bypass" | "warn" | "error";
  /** More handlers to install with the mock's, such as your webhook receiver. */
  handlers?: Parameters<typeof setupServer>;
}

/** The mock with the msw server it runs on. */
export interface GenVideoMockSetup extends GenVideoMock {
  /** The msw server: `server.use()` overrides for one test; they are reset after each test. */
  readonly server: SetupServer;
}

/**
 * Starts a mocked genvideo service for the current vitest file: the msw
 * server listens in `beforeAll`, handlers and the mock are reset in
 * `afterEach`, and the server closes in `afterAll`. Call it at the top level
 * of a test file (or a `describe`).
 *
 * @example
 * ```ts
 * import { setupGenVideoMock } from "@genvideo/msw/vitest";
 *
 * const mock = setupGenVideoMock();
 *
 * it("completes", async () => {
 *   const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey });
 *   const task = await client.createTask({ prompt: "a red fox" });
 *   await mock.tasks.complete(task.task_id);
 *   expect((await client.getStatus(task.task_id)).status).toBe("completed");
 * });
 * ```
 */
export function setupGenVideoMock(options: SetupGenVideoMockOptions = {}): GenVideoMockSetup {
  const { onUnhandledFrame = "error", handlers = [], ...mockOptions } = options;
  const mock = createGenVideoMock(mockOptions);
  const server = setupServer(...mock.handlers, ...handlers);
  beforeAll(() => server.listen({ onUnhandledFrame }));
  afterEach(async () => {
    server.resetHandlers();
    await mock.reset();
  });
  afterAll(() => server.close());
  // Keeps the mock's getters (engine, errors.remaining) live instead of copying their values.
  return Object.defineProperties(Object.create(mock) as GenVideoMock, {
    server: { value: server, enumerable: true },
  }) as GenVideoMockSetup;
}
