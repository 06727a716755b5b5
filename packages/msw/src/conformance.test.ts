/**
 * The SDK's conformance check (`@genvideo/sdk/conformance`) over the mock through its `fetch`: the
 * mock passes every check, and a mock made to drift from the contract in one way fails exactly the
 * check that names that drift. (The reference server's run is the CLI's test, in apps/server.)
 */
import {
  type CheckDeploymentOptions,
  checkDeployment,
  DeploymentUnreachableError,
  formatConformanceReport,
  type ReceivedWebhookRequest,
  type WebhookInbox,
} from "@genvideo/sdk/conformance";
import { describe, expect, it } from "vitest";
import { createGenVideoMock, type GenVideoMock } from "./index.js";

type Drift = (request: Request, response: Response) => Promise<Response>;

/** The webhooks the mock sent, handed over as a receiver would get them (`alter` drifts them). */
function recordedInbox(
  mock: GenVideoMock,
  alter = (headers: Record<string, string>) => headers,
): WebhookInbox {
  let taken = 0;
  return {
    url: "https://receiver.example/hooks/genvideo",
    async next(): Promise<ReceivedWebhookRequest | undefined> {
      await mock.webhooks.settled();
      const delivery = mock.webhooks.deliveries[taken];
      if (!delivery) return undefined;
      taken += 1;
      return { method: "POST", headers: alter({ ...delivery.headers }), body: delivery.body };
    },
  };
}

async function withJson(
  response: Response,
  change: (body: Record<string, unknown>) => void,
): Promise<Response> {
  const body = (await response.json()) as Record<string, unknown>;
  change(body);
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  return new Response(JSON.stringify(body), { status: response.status, headers });
}

/** Runs the checks on a fresh mock, through `drift` when given; `create` adds a task and its webhook. */
async function check(
  drift?: Drift,
  setup: {
    create?: boolean;
    failedTask?: boolean;
    alterWebhook?: (headers: Record<string, string>) => Record<string, string>;
  } = {},
) {
  const mock = createGenVideoMock({ webhookDelivery: "record" });
  const send = async (request: Request) => {
    const response = await mock.fetch(request.clone());
    return drift ? drift(request, response) : response;
  };
  let taskId: string | undefined;
  if (setup.failedTask) {
    const created = await mock.fetch(
      new Request(`${mock.baseUrl}/api/gen/generate`, {
        method: "POST",
        headers: { authorization: `Bearer ${mock.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ prompt: "[[fail:UNSAFE_CONTENT]] a fox" }),
      }),
    );
    taskId = ((await created.json()) as { task_id: string }).task_id;
    await mock.clock.advance("2m");
  }
  const options: CheckDeploymentOptions = {
    apiKey: mock.apiKey,
    fetch: send,
    wait: async (ms) => {
      await mock.clock.advance(ms);
    },
    now: () => mock.clock.now().getTime(),
    ...(taskId ? { taskId } : {}),
    ...(setup.create
      ? { create: { webhooks: recordedInbox(mock, setup.alterWebhook), webhookSecret: mock.webhookSecret } }
      : {}),
  };
  const report = await checkDeployment(mock.baseUrl, options);
  const failed = report.checks.filter((entry) => entry.outcome === "fail").map((entry) => entry.id);
  return { report, failed, text: formatConformanceReport(report) };
}

const pathOf = (request: Request) => new URL(request.url).pathname;

describe("the conformance check on the msw mock", () => {
  it("passes the mock read-only, with a failed task's status", async () => {
    const { report, text } = await check(undefined, { failedTask: true });
    expect(report.ok, text).toBe(true);
    expect(report.checks.find((entry) => entry.id === "task-status")?.outcome).toBe("pass");
  });

  it("passes the mock with a created task followed to its end and its verified webhook", async () => {
    const { report, text } = await check(undefined, { create: true });
    expect(report.ok, text).toBe(true);
    const outcomes = Object.fromEntries(report.checks.map((entry) => [entry.id, entry.outcome]));
    for (const id of [
      "create-task",
      "create-status-until-end",
      "webhook-delivery",
      "video-range",
      "video-head",
      "video-signature-tampered",
    ])
      expect(outcomes[id], text).toBe("pass");
  });

  it("never shows the API key in the report", async () => {
    const { report } = await check(undefined, { create: true });
    const mock = createGenVideoMock();
    expect(JSON.stringify(report)).not.toContain(mock.apiKey);
  });

  it("throws DeploymentUnreachableError when nothing answers", async () => {
    const refused = () => Promise.reject(new TypeError("fetch failed", { cause: { code: "ECONNREFUSED" } }));
    await expect(checkDeployment("http://127.0.0.1:9", { apiKey: "k", fetch: refused })).rejects.toThrow(
      DeploymentUnreachableError,
    );
  });
});

describe("each drift from the contract is caught by name", () => {
  it("a 401 with another message: auth-invalid-key", async () => {
    const { failed, text } = await check(async (_request, response) =>
      response.status === 401
        ? withJson(response, (body) => {
            if (body.message === "Invalid API key") body.message = "Invalid api key";
          })
        : response,
    );
    expect(failed, text).toEqual(["auth-invalid-key"]);
    expect(text).toContain('message is "Invalid api key", expected "Invalid API key"');
  });

  it("an answer without X-Request-Id: request-id", async () => {
    const { failed, text } = await check(async (request, response) => {
      if (!pathOf(request).includes("/status/")) return response;
      const headers = new Headers(response.headers);
      headers.delete("x-request-id");
      return new Response(response.body, { status: response.status, headers });
    });
    expect(failed, text).toEqual(["request-id"]);
    expect(text).toContain("X-Request-Id missing");
  });

  it("an unknown task answered 400 instead of 404: task-unknown", async () => {
    const { failed, text } = await check(async (request, response) =>
      response.status === 404 && pathOf(request).includes("/status/")
        ? new Response(await response.text(), { status: 400, headers: response.headers })
        : response,
    );
    expect(failed, text).toEqual(["task-unknown"]);
    expect(text).toContain("status 400, expected 404");
  });

  it("a video_url on a failed task: task-status", async () => {
    const { failed, text } = await check(
      async (request, response) =>
        pathOf(request).includes("/status/") && response.status === 200
          ? withJson(response, (body) => {
              if (body.status === "failed") body.video_url = "https://cdn.example/none.mp4";
            })
          : response,
      { failedTask: true },
    );
    expect(failed, text).toEqual(["task-status"]);
    expect(text).toContain("on a failed task, expected null");
  });

  it("a webhook without a signature: webhook-delivery", async () => {
    const { failed, text } = await check(undefined, {
      create: true,
      alterWebhook: ({ "webhook-signature": _dropped, ...rest }) => rest,
    });
    expect(failed, text).toEqual(["webhook-delivery"]);
    expect(text).toContain("webhook-signature missing: the webhook is not signed");
  });

  it("a webhook signed with another secret: webhook-delivery", async () => {
    const { failed, text } = await check(undefined, {
      create: true,
      alterWebhook: (headers) => ({
        ...headers,
        "webhook-signature": "v1,AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
      }),
    });
    expect(failed, text).toEqual(["webhook-delivery"]);
    expect(text).toContain("the signature does not verify");
  });

  it("a video served without its signature checked: video-signature-tampered, video-signature-missing", async () => {
    const { failed, text } = await check(
      async (request, response) => {
        const url = new URL(request.url);
        if (!url.pathname.startsWith("/videos/") || response.status !== 403) return response;
        const headers = new Headers(response.headers);
        headers.set("content-type", "video/mp4");
        headers.delete("content-length");
        return new Response(new Uint8Array(16), { status: 200, headers });
      },
      { create: true },
    );
    expect(failed, text).toEqual(["video-signature-tampered", "video-signature-missing"]);
  });
});
