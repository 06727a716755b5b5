/**
 * Test doubles for the ports and a harness around one engine, for this
 * package's tests only (excluded from the build).
 */
import { type ManualClock, manualClock } from "../../src/clock.js";
import type { EngineConfigInput } from "../../src/config.js";
import { createEngine, type Engine, type EngineOptions } from "../../src/engine.js";
import { chargeForKey } from "../../src/keys/key-checked-charge.js";
import type {
  Renderer,
  RenderJob,
  Store,
  VideoStorage,
  WebhookAttemptOutcome,
  WebhookDelivery,
  WebhookSender,
} from "../../src/ports.js";
import { createMemoryStore, type MemoryStore } from "../../src/store/memory-store.js";

/** A renderer that succeeds at once, unless told to fail or hang; records its jobs and aborts. */
export class FakeRenderer implements Renderer {
  jobs: RenderJob[] = [];
  aborted: string[] = [];
  mode: "succeed" | "fail" | "hang" = "succeed";

  render(job: RenderJob, signal: AbortSignal): Promise<{ videoKey: string }> {
    this.jobs.push(job);
    if (this.mode === "fail") return Promise.reject(new Error("encoder crashed"));
    if (this.mode === "succeed") return Promise.resolve({ videoKey: `videos/${job.taskId}.mp4` });
    return new Promise((_, reject) => {
      signal.addEventListener("abort", () => {
        this.aborted.push(job.taskId);
        reject(signal.reason);
      });
    });
  }
}

/** Signs nothing: a URL shaped like the server's, predictable for assertions. */
export const fakeVideoStorage: VideoStorage = {
  async signedUrl(_videoKey, taskId, now) {
    return `https://videos.test/videos/${taskId}.mp4?expires=${Math.floor(now / 1000) + 604_800}&signature=test`;
  },
};

/** Records every delivery and answers with the next queued status (default 200). */
export class FakeSender implements WebhookSender {
  deliveries: WebhookDelivery[] = [];
  statuses: number[] = [];
  defaultStatus = 200;

  async send(delivery: WebhookDelivery): Promise<WebhookAttemptOutcome> {
    this.deliveries.push(delivery);
    const statusCode = this.statuses.shift() ?? this.defaultStatus;
    if (statusCode >= 200 && statusCode < 300) return { ok: true, statusCode, durationMs: 5 };
    return { ok: false, statusCode, error: `HTTP ${statusCode}`, durationMs: 5 };
  }
}

export interface Harness {
  engine: Engine;
  store: MemoryStore;
  clock: ManualClock;
  wallClock: ManualClock;
  renderer: FakeRenderer;
  sender: FakeSender;
  apiKey: string;
  accountId: string;
  webhookSecret: string;
  /** Calls the app like a client would; `key: null` sends no Authorization header. */
  call(method: string, path: string, options?: CallOptions): Promise<Response>;
  /** Creates a task with `body` and returns its id (asserting a 200). */
  create(body: Record<string, unknown>, key?: string): Promise<string>;
  status(taskId: string, key?: string): Promise<Record<string, unknown>>;
  /** Moves service time and lets the engine do everything due. */
  advance(milliseconds: number): Promise<void>;
}

export interface CallOptions {
  key?: string | null;
  body?: unknown;
  rawBody?: BodyInit;
  headers?: Record<string, string>;
}

export const START: number = Date.UTC(2026, 0, 1);

export async function createHarness(
  config: EngineConfigInput = {},
  {
    rehearse = true,
    storeAround,
    ...options
  }: Pick<EngineOptions, "randomUUID" | "onRenderEnded" | "observer"> & {
    rehearse?: boolean;
    /** The store the engine runs on, around the harness's memory store (`store` stays that one). */
    storeAround?: (store: MemoryStore) => Store;
  } = {},
): Promise<Harness> {
  const clock = manualClock(START);
  const wallClock = manualClock(Date.now());
  // Every transaction runs twice, as a retrying store may run it: work unsafe to re-run fails here.
  const store = createMemoryStore({ rehearse });
  const renderer = new FakeRenderer();
  const sender = new FakeSender();
  const engine = createEngine({
    store: storeAround ? storeAround(store) : store,
    clock,
    wallClock,
    renderer,
    videoStorage: fakeVideoStorage,
    sender,
    config: { rateLimits: { enabled: false }, ...config },
    ...options,
  });
  const bootstrap = await engine.admin.bootstrap();
  const apiKey = bootstrap.apiKey!;
  const call: Harness["call"] = async (method, path, options = {}) => {
    const headers = new Headers(options.headers);
    const key = options.key === undefined ? apiKey : options.key;
    if (key !== null && !headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
    let body = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      if (!headers.has("content-type")) headers.set("content-type", "application/json");
    }
    return engine.app.fetch(new Request(`http://localhost${path}`, { method, headers, body }));
  };
  return {
    engine,
    store,
    clock,
    wallClock,
    renderer,
    sender,
    apiKey,
    accountId: bootstrap.account.id,
    webhookSecret: bootstrap.webhookSecret!,
    call,
    async create(body, key) {
      const response = await call("POST", "/api/gen/generate", { body, ...(key ? { key } : {}) });
      const json = (await response.json()) as { task_id: string };
      if (response.status !== 200)
        throw new Error(`create failed: ${response.status} ${JSON.stringify(json)}`);
      return json.task_id;
    },
    async status(taskId, key) {
      const response = await call("GET", `/api/gen/status/${taskId}`, key ? { key } : {});
      return (await response.json()) as Record<string, unknown>;
    },
    async advance(milliseconds) {
      clock.advance(milliseconds);
      await engine.runUntilIdle();
    },
  };
}

/**
 * `store` with `Store.insertChargedTaskForKey` (as the PostgreSQL store has it), done in one of
 * its transactions: the key found live by `liveCaller`'s rule, then `insertChargedTask` for its
 * account. `calls` counts its uses and the engine's own key lookups, to tell which path a create took.
 */
export interface KeyCheckingStore extends Store {
  calls: { keyChecked: number; keyLookups: number };
  /** Set: the key-checked write fails with it (the database out of reach). */
  failure: Error | undefined;
}

export function keyCheckingStore(store: Store): KeyCheckingStore {
  const calls = { keyChecked: 0, keyLookups: 0 };
  const double: KeyCheckingStore = {
    calls,
    failure: undefined,
    transaction: (work, options) =>
      store.transaction(
        (tx) =>
          work({
            ...tx,
            getApiKeyByHash: (hash) => {
              calls.keyLookups++;
              return tx.getApiKeyByHash(hash);
            },
          }),
        options,
      ),
    insertChargedTaskForKey: (keyHash, now, task, charge) => {
      calls.keyChecked++;
      if (double.failure) return Promise.reject(double.failure);
      return store.transaction((tx) => chargeForKey(tx, keyHash, now, task, charge));
    },
    close: () => store.close(),
  };
  return double;
}
