/**
 * Statement counts per API request, taken at the driver (node:sqlite's
 * statements, pg's `Client#query`), the way Django's `assertNumQueries` does:
 * whatever layer adds a statement to a request, these counts see it. The
 * engine runs without its worker loop or timers, so nothing else queries
 * while a request is counted.
 */
import {
  createEngine,
  type EngineConfigInput,
  type EngineObserver,
  type ManualClock,
  manualClock,
  type Renderer,
  type Store,
} from "@genvideo/engine";
import { combineObservers } from "../../src/telemetry/combine-observers.js";
import { createServerMetrics } from "../../src/telemetry/metrics.js";
import { tracedStore, tracingObserver } from "../../src/telemetry/traced-ports.js";

const API_KEY = "count_key_0123456789abcdefghijklmnop";
const auth = { authorization: `Bearer ${API_KEY}` };

/** What one request sent to the database: each statement's first words, in order. */
export interface Counted {
  status: number;
  body: unknown;
  statements: string[];
  /** Transactions begun (BEGIN statements). */
  transactions: number;
}

/** A statement's first words, enough to tell statements apart in a failure's diff. */
export function shortStatement(sql: string): string {
  return sql.replace(/\s+/g, " ").trim().slice(0, 48).trimEnd();
}

/**
 * What the server adds around the engine when metrics and traces are on:
 * its metrics observer, the tracing observer and the traced store (tracing's
 * API without an SDK: spans are made and dropped). None may query per request.
 */
export function withTelemetry(store: Store): { store: Store; observer: EngineObserver } {
  const metrics = createServerMetrics({
    role: "all",
    renderSlots: 2,
    activity: () => ({ renders: 0, leasesHeld: 0, webhookAttempts: 0 }),
    queue: () => Promise.reject(new Error("read on scrape only")),
    serviceNow: () => 0,
    onQueueError: () => undefined,
  });
  return { store: tracedStore(store), observer: combineObservers(metrics.observer, tracingObserver) };
}

/**
 * An engine on `store` (rate limits off: limiters are not the store's) with a
 * funded default account, and `count(request)`: the statements `recorded`
 * saw while the request ran. `observer`: see `withTelemetry`. `worker`: the
 * renderer, settings and clock a test of the worker's statements drives
 * (`countWork`).
 */
export async function countingEngine(
  store: Store,
  recorded: { statements: string[] | undefined },
  observer?: EngineObserver,
  worker: { renderer?: Renderer; config?: EngineConfigInput; clock?: ManualClock } = {},
) {
  const engine = createEngine({
    ...(observer ? { observer } : {}),
    store,
    clock: worker.clock ?? manualClock(),
    renderer: worker.renderer ?? {
      render: async () => {
        throw new Error("no renders while statements are counted");
      },
    },
    videoStorage: { signedUrl: async (_key, taskId) => `https://videos.test/${taskId}.mp4` },
    sender: {
      send: async () => ({ ok: false, statusCode: null, error: "no webhooks here", durationMs: 0 }),
    },
    config: { ...worker.config, rateLimits: { enabled: false } },
  });
  await engine.admin.bootstrap({ apiKey: API_KEY });
  const [account] = await engine.admin.listAccounts();
  await engine.admin.creditAccount(account!.id, 1000);

  /** `headers` are added to the default key's Authorization (and may replace it). */
  async function count(
    method: "GET" | "POST",
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Counted> {
    const json = body === undefined ? undefined : JSON.stringify(body);
    // As an HTTP client sends it: a body with its Content-Length.
    const init: RequestInit =
      json === undefined
        ? { method, headers: { ...auth, ...headers } }
        : {
            method,
            headers: {
              ...auth,
              "content-type": "application/json",
              "content-length": String(Buffer.byteLength(json)),
              ...headers,
            },
            body: json,
          };
    recorded.statements = [];
    try {
      const response = await engine.app.fetch(new Request(`http://127.0.0.1${path}`, init));
      const answer = await response.json();
      const statements = recorded.statements.map(shortStatement);
      const transactions = statements.filter((sql) => /^begin\b/i.test(sql)).length;
      return { status: response.status, body: answer, statements, transactions };
    } finally {
      recorded.statements = undefined;
    }
  }
  /**
   * The statements `work` (a worker's tick, its renders' completions) sent, as `count` says them;
   * `texts`, each one whole (not enumerable: a failure's diff shows the short ones).
   */
  async function countWork(
    work: () => Promise<unknown>,
  ): Promise<Omit<Counted, "status" | "body"> & { texts?: string[] }> {
    recorded.statements = [];
    try {
      await work();
      const statements = recorded.statements.map(shortStatement);
      const counted = { statements, transactions: statements.filter((sql) => /^begin\b/i.test(sql)).length };
      return Object.defineProperty(counted, "texts", { value: [...recorded.statements], enumerable: false });
    } finally {
      recorded.statements = undefined;
    }
  }
  return { engine, count, countWork };
}

/** Takes every credit the store's first account has (one ledger entry), so its next create is a 402. */
export async function emptyFirstAccount(store: Store): Promise<{ id: string }> {
  const [account] = await store.transaction((tx) => tx.listAccounts());
  if (!account) throw new Error("no account to empty");
  await store.transaction((tx) =>
    tx.appendLedger({
      id: "drain",
      accountId: account.id,
      taskId: null,
      delta: -account.credits,
      reason: "charge",
      createdAt: 0,
    }),
  );
  return account;
}
