/// <reference types="node" />
/**
 * Drives the reference server through everything it answers: the three request forms, every
 * error status it can produce, every task state, the webhook endpoints and the signed video
 * download. Each exchange is recorded (status, headers, body) with what the contract says of its
 * request: valid, or invalid in a way the OpenAPI document can express (so a validator must flag it).
 */

import { createHash } from "node:crypto";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import {
  eventually,
  type RunningServer,
  runCli,
  startServer,
  startWebhookReceiver,
  TEST_API_KEY,
  type WebhookReceiver,
} from "@genvideo/server/testing";
import type { RecordedAnswer } from "./switch-upstream.js";

/** A real 1×1 PNG. */
export const PNG =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/**
 * `valid`: the document accepts the request. `invalid`: the document itself refuses it (a
 * validator must flag it). `unchecked`: refused by the server for reasons past the document
 * (credits, idempotency, a private callback host, authentication).
 */
export type RequestVerdict = "valid" | "invalid" | "unchecked";

export interface Exchange {
  name: string;
  method: string;
  path: string;
  request: RequestVerdict;
  status: number;
  headers: Headers;
  body: string;
  /** The raw Response, for a proxy's headers. */
  response: Response;
}

/**
 * The reference server as the suites drive it: 300 times faster (generation takes 0.2 s, the
 * deadline 2 s), one render slot (a tick starts one render, so a burst of tasks visibly queues),
 * the fixture renderer, insecure callbacks to a loopback receiver, a create bucket (real time,
 * per key) that holds every create of the drive but not a burst of 100, and room for the drive's
 * deliberate authentication failures (its 429 is the key's bucket, not the client's failures).
 */
export async function startDrivenServer(): Promise<RunningServer> {
  return startServer({
    env: {
      GENVIDEO_TIME_SCALE: "300",
      GENVIDEO_WORKERS: "1",
      GENVIDEO_RENDERER: "fixture",
      GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
      GENVIDEO_RATE_LIMITS: "creates=80,reads=1000000,failed-auth=1000",
    },
  });
}

/** Answers recorded straight from the server because a proxy cannot carry them (see switch-upstream). */
export async function recordDirectAnswers(server: RunningServer): Promise<Map<string, RecordedAnswer>> {
  const recorded = new Map<string, RecordedAnswer>();
  const record = async (name: string, response: Response) => {
    const headers: Record<string, string> = {};
    response.headers.forEach((value, key) => {
      if (key !== "content-length" && key !== "connection" && key !== "keep-alive") headers[key] = value;
    });
    recorded.set(name, { status: response.status, headers, body: await response.text() });
  };
  await record(
    "badJson",
    await server.api("/api/gen/generate", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"prompt": "A fox",',
    }),
  );
  recorded.set("tooLarge", await declareHugeBody(server.url));
  return recorded;
}

/** A create declaring a 65 MiB body: the server refuses it by its Content-Length before reading it. */
function declareHugeBody(base: string): Promise<RecordedAnswer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(new URL("/api/gen/generate", base), {
      method: "POST",
      headers: {
        authorization: `Bearer ${TEST_API_KEY}`,
        "content-type": "application/json",
        "content-length": String(65 * 1024 * 1024),
      },
    });
    request.on("response", (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => {
        const headers: Record<string, string> = {};
        for (const [key, value] of Object.entries(response.headers)) {
          if (typeof value === "string" && !["content-length", "connection", "keep-alive"].includes(key))
            headers[key] = value;
        }
        resolve({ status: response.statusCode ?? 0, headers, body });
        request.destroy();
      });
    });
    request.on("error", (error) => {
      if (!request.destroyed) reject(error);
    });
    request.write('{"prompt":"');
  });
}

export interface DriveResult {
  exchanges: Exchange[];
  webhooks: WebhookReceiver["received"];
}

/**
 * Drives everything through `base` (the server itself, or a proxy in front of it). `replay` adds the
 * recorded answers' names to request through a switch upstream, when there is one.
 */
export async function driveEverything(
  server: RunningServer,
  base: string,
  options: { replay?: string[] } = {},
): Promise<DriveResult> {
  const receiver = await startWebhookReceiver();
  const exchanges: Exchange[] = [];
  const send = async (
    name: string,
    verdict: RequestVerdict,
    method: string,
    path: string,
    init: { json?: unknown; body?: string; headers?: Record<string, string>; key?: string | null } = {},
  ): Promise<Exchange> => {
    const headers: Record<string, string> = {
      ...(init.key === null ? {} : { authorization: `Bearer ${init.key ?? TEST_API_KEY}` }),
      ...(init.json !== undefined ? { "content-type": "application/json" } : {}),
      ...init.headers,
    };
    const response = await fetch(new URL(path, base), {
      method,
      headers,
      ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}),
      ...(init.body !== undefined ? { body: init.body } : {}),
    });
    const exchange: Exchange = {
      name,
      method,
      path,
      request: verdict,
      status: response.status,
      headers: response.headers,
      body: method === "HEAD" ? "" : await response.clone().text(),
      response,
    };
    exchanges.push(exchange);
    return exchange;
  };
  const create = async (name: string, json: unknown, verdict: RequestVerdict = "valid", key?: string) =>
    send(name, verdict, "POST", "/api/gen/generate", { json, ...(key ? { key } : {}) });
  const taskIdOf = (exchange: Exchange) => (JSON.parse(exchange.body) as { task_id: string }).task_id;

  try {
    // Task states: the slow task holds the only worker, so the next one waits in the queue.
    const slow = taskIdOf(await create("create: text, slow", { prompt: "slow fox [[delay:6m]]" }));
    const frames = taskIdOf(
      await create("create: frame to frame", {
        prompt: "Morph",
        model_type: "gen-3",
        aspect_ratio: "9:16",
        start_frame: PNG,
        end_frame: PNG,
        callback_url: receiver.url,
      }),
    );
    const reference = taskIdOf(
      await create("create: reference images", {
        prompt: "Cat",
        reference_images: [PNG, PNG, PNG, PNG],
        aspect_ratio: "1:1",
        callback_url: receiver.url,
      }),
    );
    const trimmed = taskIdOf(
      await create("create: 2000 characters with spaces around", { prompt: `  ${"x".repeat(2000)}  \n` }),
    );
    const unsafe = taskIdOf(
      await create("create: unsafe", { prompt: "[[fail:UNSAFE_CONTENT]]", callback_url: receiver.url }),
    );
    const broken = taskIdOf(
      await create("create: generation fails", { prompt: "[[fail:GENERATION_FAILED]]" }),
    );
    const stuck = taskIdOf(
      await create("create: never finishes", { prompt: "[[timeout]]", callback_url: receiver.url }),
    );
    const tasks = [slow, frames, reference, trimmed, unsafe, broken, stuck];
    const seen = new Set<string>();
    // One render starts per tick: of a burst of tasks, the last ones are read while still queued.
    for (let round = 0; round < 3 && !seen.has("queued"); round++) {
      const burst = await Promise.all(
        Array.from({ length: 5 }, (_, index) =>
          create("create: burst", { prompt: `burst ${round}.${index}` }),
        ),
      );
      const reads = await Promise.all(
        burst.map((exchange) => send("status", "valid", "GET", `/api/gen/status/${taskIdOf(exchange)}`)),
      );
      for (const read of reads) seen.add((JSON.parse(read.body) as { status: string }).status);
    }
    const statuses = async () => {
      for (const task of tasks) {
        const exchange = await send("status", "valid", "GET", `/api/gen/status/${task}`);
        const body = JSON.parse(exchange.body) as { status: string; message: string };
        seen.add(body.status === "failed" ? `failed:${body.message}` : body.status);
      }
    };
    await statuses();
    await eventually(
      async () => {
        await statuses();
        const done = [
          "queued",
          "processing",
          "completed",
          "failed:UNSAFE_CONTENT",
          "failed:GENERATION_FAILED",
          "failed:TIMEOUT",
        ];
        return done.every((state) => seen.has(state)) ? true : undefined;
      },
      30_000,
      `every task state (seen: ${[...seen].join(", ")})`,
    );

    // The create's refusals the document can express, and those past it.
    await create("invalid: start_frame without end_frame", { prompt: "x", start_frame: PNG }, "invalid");
    await create("invalid: end_frame without start_frame", { prompt: "x", end_frame: PNG }, "invalid");
    await create(
      "invalid: frames mixed with reference images",
      { prompt: "x", start_frame: PNG, end_frame: PNG, reference_images: [PNG] },
      "invalid",
    );
    await create("invalid: unknown field", { prompt: "x", colour: "red" }, "invalid");
    await create("invalid: no prompt", { model_type: "gen-3" }, "invalid");
    await create("invalid: prompt of spaces", { prompt: "   " }, "invalid");
    await create("invalid: prompt over 2000 after trimming", { prompt: "x".repeat(2001) }, "invalid");
    await create("invalid: prompt not a string", { prompt: 42 }, "invalid");
    await create("invalid: unknown model", { prompt: "x", model_type: "gen-9" }, "invalid");
    await create("invalid: null aspect ratio", { prompt: "x", aspect_ratio: null }, "invalid");
    await create(
      "invalid: five reference images",
      { prompt: "x", reference_images: [PNG, PNG, PNG, PNG, PNG] },
      "invalid",
    );
    await create("invalid: no reference images", { prompt: "x", reference_images: [] }, "invalid");
    await create(
      "invalid: not an image",
      { prompt: "x", reference_images: ["data:text/plain;base64,aGk="] },
      "invalid",
    );
    await create("invalid: body an array", [1, 2], "invalid");
    await create("invalid: callback not a URL", { prompt: "x", callback_url: "not a url" }, "invalid");
    await create(
      "refused: callback with credentials",
      { prompt: "x", callback_url: "https://user:pw@example.com/hook" },
      "unchecked",
    );
    await send("refused: not JSON", "invalid", "POST", "/api/gen/generate", {
      body: '{"prompt":"x"}',
      headers: { "content-type": "text/plain" },
    });
    await send("invalid: Idempotency-Key too long", "invalid", "POST", "/api/gen/generate", {
      json: { prompt: "x" },
      headers: { "idempotency-key": "k".repeat(256) },
    });

    // Idempotency: replay, a different body (422), a request still running (409).
    const key = `order-${crypto.randomUUID()}`;
    for (const name of ["idempotent create", "idempotent replay"])
      await send(name, "valid", "POST", "/api/gen/generate", {
        json: { prompt: "once" },
        headers: { "idempotency-key": key },
      });
    await send("refused: key reused with another body", "unchecked", "POST", "/api/gen/generate", {
      json: { prompt: "twice" },
      headers: { "idempotency-key": key },
    });
    const running = claimIdempotencyKey(server, { prompt: "claimed elsewhere" });
    await send("refused: key still running", "unchecked", "POST", "/api/gen/generate", {
      json: { prompt: "claimed elsewhere" },
      headers: { "idempotency-key": running },
    });

    // Authentication, on every route.
    const routes: [string, string][] = [
      ["POST", "/api/gen/generate"],
      ["GET", `/api/gen/status/${slow}`],
      ["GET", "/api/gen/account"],
      ["GET", `/api/gen/tasks/${slow}/webhooks`],
      ["POST", `/api/gen/tasks/${slow}/webhooks/redeliver`],
    ];
    for (const [method, path] of routes) {
      await send(`401 missing: ${method} ${path}`, "unchecked", method, path, { key: null });
      await send(`401 malformed: ${method} ${path}`, "unchecked", method, path, {
        key: null,
        headers: { authorization: "Basic dXNlcjpwYXNz" },
      });
      await send(`401 invalid: ${method} ${path}`, "unchecked", method, path, {
        key: "gen_sk_unknownunknownunknownunknown00",
      });
    }

    // Reads, task ids and webhooks.
    await send("account", "valid", "GET", "/api/gen/account");
    const unknown = crypto.randomUUID();
    for (const path of [`/api/gen/status/${unknown}`, `/api/gen/tasks/${unknown}/webhooks`])
      await send(`404 ${path}`, "valid", "GET", path);
    await send("404 redeliver unknown task", "valid", "POST", `/api/gen/tasks/${unknown}/webhooks/redeliver`);
    await send(
      "404 redeliver without callback",
      "valid",
      "POST",
      `/api/gen/tasks/${trimmed}/webhooks/redeliver`,
    );
    for (const [method, path] of [
      ["GET", "/api/gen/status/12345"],
      ["GET", "/api/gen/tasks/12345/webhooks"],
      ["POST", "/api/gen/tasks/12345/webhooks/redeliver"],
    ] as const)
      await send(`400 task id: ${method} ${path}`, "invalid", method, path);
    await eventually(
      async () => (receiver.received.length >= 4 ? true : undefined),
      30_000,
      "the webhooks of the four tasks with a callback_url",
    );
    for (const task of [frames, reference, unsafe, stuck])
      await send("webhook events", "valid", "GET", `/api/gen/tasks/${task}/webhooks`);
    await send("redeliver", "valid", "POST", `/api/gen/tasks/${unsafe}/webhooks/redeliver`);

    // The signed video download.
    const completed = JSON.parse(
      (await send("status: completed", "valid", "GET", `/api/gen/status/${reference}`)).body,
    ) as { video_url: string };
    const video = new URL(completed.video_url);
    const videoPath = `${video.pathname}${video.search}`;
    const whole = await send("video", "valid", "GET", videoPath, { key: null });
    await send("video: HEAD", "valid", "HEAD", videoPath, { key: null });
    await send("video: range", "valid", "GET", videoPath, { key: null, headers: { range: "bytes=0-99" } });
    await send("video: not modified", "valid", "GET", videoPath, {
      key: null,
      headers: { "if-none-match": whole.headers.get("etag") ?? "" },
    });
    await send("video: range past the end", "valid", "GET", videoPath, {
      key: null,
      headers: { range: "bytes=999999999-" },
    });
    await send(
      "video: wrong signature",
      "valid",
      "GET",
      `${video.pathname}?expires=${video.searchParams.get("expires")}&signature=0000`,
      {
        key: null,
      },
    );

    // Credits and the rate limit, on an account with no credits.
    const poorKey = await createPoorKey(server);
    await create("refused: no credits", { prompt: "x" }, "unchecked", poorKey);
    const burst = await Promise.all(
      Array.from({ length: 100 }, () =>
        fetch(new URL(`/api/gen/tasks/${unknown}/webhooks/redeliver`, base), {
          method: "POST",
          headers: { authorization: `Bearer ${poorKey}` },
        }),
      ),
    );
    const limited = burst.find((response) => response.status === 429);
    if (!limited)
      throw new Error(`no 429 in a burst of ${burst.length}: ${burst.map((r) => r.status).join(",")}`);
    exchanges.push({
      name: "429 rate limited",
      method: "POST",
      path: "/api/gen/tasks/{task_id}/webhooks/redeliver",
      request: "valid",
      status: limited.status,
      headers: limited.headers,
      body: await limited.clone().text(),
      response: limited,
    });
    for (const response of burst) if (response !== limited) await response.body?.cancel();

    for (const name of options.replay ?? [])
      await send(`replayed: ${name}`, "valid", "POST", "/api/gen/generate", {
        json: { prompt: "replayed" },
        headers: { "x-replay": name },
      });

    // Last: a fault of the service (a table gone), answered 500 with the request id.
    breakTheStore(server);
    await send("500 internal error on a status read", "valid", "GET", `/api/gen/status/${slow}`);
    await send("500 internal error on create", "valid", "POST", "/api/gen/generate", {
      json: { prompt: "x" },
    });
    return { exchanges, webhooks: receiver.received };
  } finally {
    await receiver.close();
  }
}

const DAY_MS = 86_400_000;

/** An Idempotency-Key another server process has just claimed for `body` (still running). */
function claimIdempotencyKey(server: RunningServer, body: unknown): string {
  const key = `claimed-${crypto.randomUUID()}`;
  const database = new DatabaseSync(join(server.dataDir, "genvideo.db"));
  try {
    database.exec("PRAGMA busy_timeout = 5000");
    const account = database.prepare("select account_id from api_keys limit 1").get() as {
      account_id: string;
    };
    database
      .prepare(
        "insert into idempotency_keys (account_id, key, request_hash, state, created_at, expires_at) values (?, ?, ?, 'in_progress', ?, ?)",
      )
      .run(
        account.account_id,
        key,
        createHash("sha256").update(JSON.stringify(body)).digest("hex"),
        // A day ahead of the service clock: while service time runs 300 times faster, the claim
        // must not look abandoned (the engine takes over a claim left for 5 minutes).
        Date.now() + DAY_MS,
        Date.now() + 2 * DAY_MS,
      );
  } finally {
    database.close();
  }
  return key;
}

async function createPoorKey(server: RunningServer): Promise<string> {
  const account = await runCli(["accounts", "create", "poor", "--credits", "0"], server.dataDir);
  if (account.code !== 0) throw new Error(`accounts create failed: ${account.stderr}`);
  const created = await runCli(["keys", "create", "--account", "poor"], server.dataDir);
  const key = created.stdout.split("\n").find((line) => /^gen_sk_\w+$/.test(line));
  if (!key) throw new Error(`keys create printed no key: ${created.stdout}${created.stderr}`);
  return key;
}

function breakTheStore(server: RunningServer): void {
  const database = new DatabaseSync(join(server.dataDir, "genvideo.db"));
  try {
    database.exec("PRAGMA busy_timeout = 5000");
    database.exec("PRAGMA foreign_keys = OFF");
    database.exec("ALTER TABLE tasks RENAME TO tasks_gone");
  } finally {
    database.close();
  }
}
