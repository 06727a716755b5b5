/// <reference types="node" />
import { createServer, type Server } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import {
  correctReceiver,
  crashesOnForgeries,
  type Handler,
  ignoresTimestamps,
  neverVerifies,
  receiverSecret,
  redirecting,
  repeatIsAnError,
  slowReceiver,
  TestClock,
  verifiesReserialisedBody,
} from "../../test/support/classic-receivers.js";
import { originOnLoopback } from "../../test/support/loopback.js";
import {
  checkWebhookReceiver,
  formatWebhookCheckReport,
  UNKNOWN_TASK_ID,
  WEBHOOK_CHECK_HEADER,
  type WebhookCheckGrade,
  type WebhookReceiverReport,
} from "./index.js";

const forgeries = [
  "body-changed",
  "wrong-secret",
  "missing-webhook-id",
  "missing-webhook-timestamp",
  "missing-webhook-signature",
  "timestamp-old",
  "timestamp-ahead",
];
const validDeliveries = [
  "completed",
  "failed-unsafe-content",
  "failed-timeout",
  "repeat",
  "raw-body",
  "unknown-field",
  "unknown-failure-code",
  "rotation-overlap",
];

function grades(report: WebhookReceiverReport): Record<string, WebhookCheckGrade> {
  return Object.fromEntries(report.cases.map((entry) => [entry.id, entry.grade]));
}

/** Every case `pass` except those named. */
function allPassBut(exceptions: Record<string, WebhookCheckGrade>): Record<string, WebhookCheckGrade> {
  const all = [...validDeliveries, ...forgeries, "answer-time"].map((id) => [id, "pass"]);
  return { ...Object.fromEntries(all), ...exceptions };
}

const check = (handler: Handler, clock = new TestClock()) =>
  checkWebhookReceiver(handler, { secret: receiverSecret, clock: clock.read });

describe("checkWebhookReceiver grades the classic receivers", () => {
  it("passes a receiver that verifies with verifyWebhook and acknowledges repeats", async () => {
    const report = await check(correctReceiver());
    expect(grades(report), formatWebhookCheckReport(report)).toEqual(allPassBut({}));
    expect(report.ok).toBe(true);
    expect(report.counts).toEqual({ pass: 16, warn: 0, fail: 0, skip: 0 });
  });

  it("fails a receiver that never verifies on every forgery", async () => {
    const report = await check(neverVerifies());
    expect(grades(report)).toEqual(allPassBut(Object.fromEntries(forgeries.map((id) => [id, "fail"]))));
    expect(report.ok).toBe(false);
    expect(report.cases.find((entry) => entry.id === "body-changed")?.detail).toMatch(
      /^accepted it: answered 200/,
    );
  });

  it("fails a receiver that verifies a re-serialised body on the valid delivery whose bytes differ", async () => {
    const report = await check(verifiesReserialisedBody());
    expect(grades(report)).toEqual(allPassBut({ "raw-body": "fail" }));
    const rawBody = report.cases.find((entry) => entry.id === "raw-body")!;
    expect(rawBody.detail).toMatch(/answered 400 in \d+ ms, expected a 2xx/);
    expect(rawBody.answer?.excerpt).toBe("bad_signature");
  });

  it("fails a receiver that ignores timestamps on both stale directions", async () => {
    const report = await check(ignoresTimestamps());
    expect(grades(report)).toEqual(allPassBut({ "timestamp-old": "fail", "timestamp-ahead": "fail" }));
  });

  it("fails a receiver that treats a repeated webhook-id as an error", async () => {
    const report = await check(repeatIsAnError());
    expect(grades(report)).toEqual(allPassBut({ repeat: "fail" }));
    expect(report.cases.find((entry) => entry.id === "repeat")?.answer).toMatchObject({ status: 409 });
  });

  it("warns about a receiver that answers after 1 s, and passes it", async () => {
    const clock = new TestClock();
    const report = await check(slowReceiver(clock, 1500), clock);
    expect(grades(report)).toEqual(allPassBut({ "answer-time": "warn" }));
    expect(report.ok).toBe(true);
  });

  it("does not warn at 1 s exactly", async () => {
    const clock = new TestClock();
    const report = await check(slowReceiver(clock, 1000), clock);
    expect(grades(report)["answer-time"]).toBe("pass");
  });

  it("fails a receiver past the 30 s attempt timeout and sends nothing more", async () => {
    const clock = new TestClock();
    let received = 0;
    const slow = slowReceiver(clock, 30_001);
    const report = await check((request) => {
      received++;
      return slow(request);
    }, clock);
    expect(received).toBe(1);
    expect(grades(report).completed).toBe("fail");
    expect(grades(report)["answer-time"]).toBe("fail");
    expect(report.counts.skip).toBe(report.cases.length - 2);
    expect(report.cases[0]?.detail).toBe("no answer within 30 s, expected a 2xx");
  });

  it("fails every case of a receiver that redirects", async () => {
    const report = await check(redirecting());
    const failing = [...validDeliveries, ...forgeries].map((id) => [id, "fail"]);
    expect(grades(report)).toEqual(allPassBut(Object.fromEntries(failing)));
    expect(report.cases[0]?.detail).toBe(
      "answered 308 to https://hooks.example.com/genvideo in 0 ms: redirects are not followed, so the delivery fails",
    );
  });

  it("fails a handler that throws on a valid delivery, and goes on with the next case", async () => {
    const correct = correctReceiver();
    const report = await check(async (request) => {
      if (request.headers.get(WEBHOOK_CHECK_HEADER) === "unknown-field")
        throw new Error("unknown key duration_s");
      return correct(request);
    });
    expect(grades(report)).toEqual(allPassBut({ "unknown-field": "fail" }));
    expect(report.cases.find((entry) => entry.id === "unknown-field")?.detail).toBe(
      "the handler threw: unknown key duration_s, expected a 2xx",
    );
  });

  it("warns when forgeries are refused with a 5xx instead of a 4xx", async () => {
    const report = await check(crashesOnForgeries());
    expect(grades(report)).toEqual(allPassBut(Object.fromEntries(forgeries.map((id) => [id, "warn"]))));
    expect(report.ok).toBe(true);
  });
});

describe("during a secret rotation (every live secret given, newest first)", () => {
  const newer = "whsec_AAECAwQFBgcICQoLDA0ODxAREhMUFRYX";
  const rotating = (handler: Handler) =>
    checkWebhookReceiver(handler, { secret: [newer, receiverSecret], clock: new TestClock().read });

  it("passes a receiver still on the older secret, warning that the newest alone is refused", async () => {
    const report = await rotating(correctReceiver(receiverSecret));
    expect(grades(report), formatWebhookCheckReport(report)).toEqual(
      allPassBut({ "newest-secret-alone": "warn" }),
    );
    expect(report).toMatchObject({ ok: true, secrets: 2, receiverSecret: "older" });
    expect(report.notes[0]).toMatch(/^The receiver verifies with an older secret only/);
    expect(report.notes[1]).not.toContain("(as this one may have)");
    expect(formatWebhookCheckReport(report)).toContain(
      "(task id 00000000-0000-4000-8000-000000000000; 2 signatures per delivery, as during a secret rotation)",
    );
  });

  it("passes a receiver on the newest secret with nothing to say about it", async () => {
    const report = await rotating(correctReceiver(newer));
    expect(grades(report)).toEqual(allPassBut({ "newest-secret-alone": "pass" }));
    expect(report).toMatchObject({ ok: true, receiverSecret: "newest", counts: { pass: 17, warn: 0 } });
  });

  it("signs each valid delivery with every secret, as the service does", async () => {
    const signatures: string[] = [];
    const correct = correctReceiver();
    await rotating(async (request) => {
      if (request.headers.get(WEBHOOK_CHECK_HEADER) === "completed")
        signatures.push(request.headers.get("webhook-signature") ?? "");
      return correct(request);
    });
    expect(signatures[0]?.split(" ")).toHaveLength(2);
  });

  it("fails a receiver on neither secret, and says nothing of which one it is on", async () => {
    const stranger = "whsec_GBkaGxwdHh8gISIjJCUmJygpKissLS4v";
    const report = await rotating(correctReceiver(stranger));
    expect(report.ok).toBe(false);
    expect(report.receiverSecret).toBeUndefined();
    expect(grades(report).completed).toBe("fail");
  });
});

describe("what the check sends", () => {
  it("marks every delivery with its case, signs valid ones with the secret, and uses a task id no task has", async () => {
    const received: Request[] = [];
    const correct = correctReceiver();
    const report = await check(async (request) => {
      received.push(request.clone());
      return correct(request);
    });
    expect(received.map((request) => request.headers.get(WEBHOOK_CHECK_HEADER))).toEqual(
      report.cases.filter((entry) => entry.answer).map((entry) => entry.id),
    );
    const [first, , , repeat] = received;
    expect(repeat?.headers.get("webhook-id")).toBe(first?.headers.get("webhook-id"));
    expect(await repeat?.text()).toBe(await first?.text());
    expect(report.taskId).toBe(UNKNOWN_TASK_ID);
    expect(report.notes[0]).toContain("refuses task ids it does not know");
  });

  it("carries a given task id in every payload and then has no note", async () => {
    const taskId = crypto.randomUUID();
    const bodies: string[] = [];
    const correct = correctReceiver();
    const report = await checkWebhookReceiver(
      async (request) => {
        bodies.push(await request.clone().text());
        return correct(request);
      },
      { secret: receiverSecret, taskId, url: "http://localhost/hooks/genvideo" },
    );
    expect(bodies.every((body) => JSON.parse(body).task_id === taskId)).toBe(true);
    expect(report.notes).toEqual([]);
    expect(report.target).toBe("handler http://localhost/hooks/genvideo");
  });

  it("formats one line per case, with why and where to read for what went wrong", async () => {
    const text = formatWebhookCheckReport(await check(ignoresTimestamps()));
    expect(text).toContain("pass  A valid delivery of a completed task: answered 204 in 0 ms");
    expect(text).toContain("fail  Validly signed ten minutes ago: accepted it: answered 204 in 0 ms");
    expect(text).toContain(
      "see: https://github.com/genvideo/genvideo/blob/main/docs/webhooks.md#verify-without-the-sdk",
    );
    expect(text).toContain("14 passed, 0 warned, 2 failed");
  });
});

describe("a receiver behind a URL", () => {
  let server: Server | undefined;
  afterEach(() => new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve())));

  /** Serves a fetch handler on loopback, the raw body passed through untouched. */
  async function serve(handler: Handler): Promise<{ url: string; paths: string[] }> {
    const paths: string[] = [];
    server = createServer(async (incoming, outgoing) => {
      const chunks: Buffer[] = [];
      for await (const chunk of incoming) chunks.push(chunk as Buffer);
      paths.push(incoming.url ?? "");
      const headers = Object.entries(incoming.headers).flatMap(([name, value]) =>
        typeof value === "string" ? [[name, value] as [string, string]] : [],
      );
      const response = await handler(
        new Request(`http://127.0.0.1${incoming.url}`, {
          method: "POST",
          headers,
          body: Buffer.concat(chunks),
        }),
      );
      outgoing.writeHead(response.status, Object.fromEntries(response.headers));
      outgoing.end(Buffer.from(await response.arrayBuffer()));
    });
    return { url: `${await originOnLoopback(server)}/hooks`, paths };
  }

  it("passes a correct receiver over real HTTP", async () => {
    const { url } = await serve(correctReceiver());
    const report = await checkWebhookReceiver(url, { secret: receiverSecret });
    expect(report.ok, formatWebhookCheckReport(report)).toBe(true);
    expect(report.target).toBe(url);
  });

  it("does not follow a redirect", async () => {
    const { url, paths } = await serve(async (request) =>
      new URL(request.url).pathname === "/hooks"
        ? new Response(null, { status: 302, headers: { location: "/moved" } })
        : new Response(null, { status: 204 }),
    );
    const report = await checkWebhookReceiver(url, { secret: receiverSecret });
    expect(grades(report).completed).toBe("fail");
    expect(paths.every((path) => path === "/hooks")).toBe(true);
  });

  it("fails when nothing listens", async () => {
    const { url } = await serve(correctReceiver());
    await new Promise<void>((resolve) => server!.close(() => resolve()));
    server = undefined;
    const report = await checkWebhookReceiver(url, { secret: receiverSecret });
    expect(report.cases[0]).toMatchObject({ grade: "fail", detail: "ECONNREFUSED, expected a 2xx" });
    // Nothing more is sent to an address that refuses connections, and nothing answered in time.
    expect(report.counts).toEqual({ pass: 0, warn: 0, fail: 2, skip: 14 });
    expect(report.cases[1]?.detail).toBe("not sent: the receiver could not be reached (ECONNREFUSED)");
    expect(report.cases.at(-1)?.detail).toBe("no answer at all");
    expect(report.ok).toBe(false);
  });
});
