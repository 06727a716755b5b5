/**
 * Drives the msw mock (`@genvideo/msw`) through what a customer's test suite meets: the three
 * request forms, every task state and failure code, delivered, pending and failed webhook events,
 * a redelivery, the signed video download and the errors of the API, recording each request with
 * its answer for the contract checker.
 */
import type { GenVideoMock } from "@genvideo/msw";
import type { ContractAnswer, ContractRequest } from "../contract/check.js";
import { PNG } from "./exchanges.js";

export interface RecordedExchange {
  request: ContractRequest;
  answer: ContractAnswer;
}

/** Webhook receivers the mock's callbacks reach: one that takes them, one that is down. */
export interface Receivers {
  ok: string;
  down: string;
}

/** Drives `mock`, which msw serves (webhook attempts pass through to `receivers`). */
export async function driveMock(mock: GenVideoMock, receivers: Receivers): Promise<RecordedExchange[]> {
  const BASE = mock.baseUrl;
  const exchanges: RecordedExchange[] = [];
  const send = async (
    method: string,
    path: string,
    init: { json?: unknown; headers?: Record<string, string>; key?: string | null; body?: string } = {},
  ) => {
    const headers: Record<string, string> = {
      ...(init.key === null ? {} : { authorization: `Bearer ${init.key ?? mock.apiKey}` }),
      ...(init.json === undefined ? {} : { "content-type": "application/json" }),
      ...init.headers,
    };
    const body = init.json === undefined ? init.body : JSON.stringify(init.json);
    const response = await fetch(new URL(path, BASE), {
      method,
      headers,
      ...(body === undefined ? {} : { body }),
    });
    const text = method === "HEAD" ? undefined : await response.text();
    exchanges.push({
      request: { method, path },
      answer: {
        status: response.status,
        headers: response.headers,
        ...(text === undefined ? {} : { body: text }),
      },
    });
    return { response, json: () => JSON.parse(text ?? "null") as Record<string, any> };
  };
  const create = async (json: unknown) =>
    (await send("POST", "/api/gen/generate", { json })).json().task_id as string;

  const tasks = [
    await create({ prompt: "A red fox", callback_url: receivers.ok }),
    await create({ prompt: "Morph", start_frame: PNG, end_frame: PNG, callback_url: receivers.down }),
    await create({ prompt: "Cat", reference_images: [PNG], aspect_ratio: "1:1" }),
    await create({ prompt: "[[fail:UNSAFE_CONTENT]]", callback_url: receivers.ok }),
    await create({ prompt: "[[fail:GENERATION_FAILED]]" }),
    await create({ prompt: "[[timeout]]" }),
  ];
  const readAll = async () => {
    for (const task of tasks) await send("GET", `/api/gen/status/${task}`);
  };
  await readAll();
  await mock.clock.advance("30s");
  await readAll();
  await mock.clock.advance("1m");
  await readAll();
  // The failing receiver's event: pending after its first tries, failed once all five have failed.
  for (const task of tasks.slice(0, 2)) await send("GET", `/api/gen/tasks/${task}/webhooks`);
  // One retry per 30 s of service time: five attempts take two minutes.
  for (let step = 0; step < 6; step++) await mock.clock.advance("30s");
  for (const task of [tasks[0], tasks[1], tasks[3]]) await send("GET", `/api/gen/tasks/${task}/webhooks`);
  await send("POST", `/api/gen/tasks/${tasks[1]}/webhooks/redeliver`);
  await send("GET", `/api/gen/tasks/${tasks[1]}/webhooks`);
  await mock.clock.advance("10m");
  await readAll();

  const { video_url } = (await send("GET", `/api/gen/status/${tasks[0]}`)).json();
  const video = new URL(video_url);
  const videoPath = `${video.pathname}${video.search}`;
  const whole = await send("GET", videoPath, { key: null });
  await send("HEAD", videoPath, { key: null });
  await send("GET", videoPath, { key: null, headers: { range: "bytes=0-99" } });
  await send("GET", videoPath, {
    key: null,
    headers: { "if-none-match": whole.response.headers.get("etag") ?? "" },
  });
  await send("GET", videoPath, { key: null, headers: { range: "bytes=999999999-" } });
  await send("GET", `${video.pathname}?expires=${video.searchParams.get("expires")}&signature=0000`, {
    key: null,
  });
  await send("DELETE", videoPath, { key: null });
  await send("GET", "/videos/", { key: null });
  await send("GET", `/videos/..%2Fsecret.mp4${video.search}`, { key: null });

  await send("GET", "/api/gen/account");
  await send("POST", "/api/gen/generate", { json: { prompt: "x", start_frame: PNG } });
  await send("POST", "/api/gen/generate", { json: { prompt: "x", colour: "red" } });
  await send("POST", "/api/gen/generate", {
    body: '{"prompt":"x"}',
    headers: { "content-type": "text/plain" },
  });
  const key = { "idempotency-key": "order-1" };
  await send("POST", "/api/gen/generate", { json: { prompt: "once" }, headers: key });
  await send("POST", "/api/gen/generate", { json: { prompt: "twice" }, headers: key });
  await send("GET", "/api/gen/generate");
  await send("GET", "/api/gen/nowhere");
  await send("GET", `/api/gen/status/${crypto.randomUUID()}`);
  await send("GET", "/api/gen/status/12345");
  await send("POST", `/api/gen/tasks/${tasks[2]}/webhooks/redeliver`);
  await send("GET", "/api/gen/account", { key: null });
  await send("GET", "/api/gen/account", { key: null, headers: { authorization: "Basic dXNlcjpwYXNz" } });
  await send("GET", "/api/gen/account", { key: "gen_sk_unknownunknownunknownunknown00" });
  return exchanges;
}
