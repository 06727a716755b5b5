import { afterEach, describe, expect, it } from "vitest";
import { hooksTestCertificate, hooksTestKey } from "../../test/support/certificate.js";
import { fakeDns } from "../../test/support/dns.js";
import {
  answering,
  type ReceiverHandler,
  type ReceiverOptions,
  startReceiver,
  type TestReceiver,
} from "../../test/support/receivers.js";
import {
  type ClosableWebhookSender,
  createWebhookSender,
  type WebhookSenderOptions,
} from "./webhook-sender.js";

// Loopback receivers are only reachable with the development flag; refusal is tested in webhook-sender-ssrf.test.ts.
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function receiver(handler: ReceiverHandler, options?: ReceiverOptions): Promise<TestReceiver> {
  const started = await startReceiver(handler, options);
  cleanups.push(() => started.close());
  return started;
}

function sender(options: Partial<WebhookSenderOptions> = {}): ClosableWebhookSender {
  const created = createWebhookSender({ allowInsecure: true, attemptTimeoutMs: 2_000, ...options });
  cleanups.push(() => created.close());
  return created;
}

const payload = JSON.stringify({ success: true, message: "done", task_id: "t1", video_url: "https://v" });

function delivery(url: string) {
  return {
    url,
    headers: {
      "content-type": "application/json",
      "webhook-id": "msg_1",
      "webhook-timestamp": "1700000000",
      "webhook-signature": "v1,abc=",
    },
    body: payload,
  };
}

const never = new AbortController().signal;

describe("webhook sender on loopback receivers (development flag on)", () => {
  it.each([200, 201, 202, 204])(
    "treats %i as delivered and sends the exact bytes and headers",
    async (status) => {
      const target = await receiver(answering(status, status === 204 ? "" : "ok"));
      const outcome = await sender().send(delivery(`${target.origin}/hooks/genvideo?tenant=7`), never);

      expect(outcome).toEqual({
        ok: true,
        statusCode: status,
        durationMs: expect.any(Number),
        ...(status === 204 ? {} : { responseExcerpt: "ok" }),
      });
      expect(target.requests).toHaveLength(1);
      const [request] = target.requests;
      expect(request).toMatchObject({ method: "POST", url: "/hooks/genvideo?tenant=7", body: payload });
      expect(request!.headers).toMatchObject({
        "content-type": "application/json",
        "webhook-id": "msg_1",
        "webhook-timestamp": "1700000000",
        "webhook-signature": "v1,abc=",
        "content-length": String(Buffer.byteLength(payload)),
        "user-agent": "genvideo-webhooks/1",
      });
    },
  );

  it.each([
    [500, "HTTP 500"],
    [503, "HTTP 503"],
    [404, "HTTP 404"],
    [410, "HTTP 410"],
    [429, "HTTP 429"],
  ])("records %i as a failure with its status code", async (status, error) => {
    const target = await receiver(answering(status, "nope"));
    const outcome = await sender().send(delivery(`${target.origin}/`), never);
    expect(outcome).toEqual({
      ok: false,
      statusCode: status,
      error,
      durationMs: expect.any(Number),
      responseExcerpt: "nope",
    });
  });

  it("keeps a bounded excerpt of the answer: decoded leniently, control characters removed", async () => {
    const known = '<h1 class="x">Down</h1>\u0000\u0007\u001b[31mred\r\n\tnext ünïcode\u009b';
    const huge = `${known}${"A".repeat(200 * 1024)}`;
    const target = await receiver(answering(500, huge, { "content-type": "text/html; charset=utf-8" }));
    const outcome = await sender().send(delivery(`${target.origin}/`), never);
    expect(outcome).toMatchObject({ ok: false, statusCode: 500, error: "HTTP 500" });
    const excerpt = outcome.responseExcerpt!;
    expect(excerpt.startsWith('<h1 class="x">Down</h1>[31mred\r\n\tnext ünïcode')).toBe(true);
    expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(1024);
    expect(excerpt.length).toBeGreaterThan(900);

    // Invalid UTF-8 becomes U+FFFD; a character cut by the bound is dropped, not half-shown.
    const bytes = Buffer.concat([Buffer.from([0xff, 0x41]), Buffer.from("é".repeat(600))]);
    const binary = await receiver(answering(502, bytes as unknown as string));
    const cut = await sender().send(delivery(`${binary.origin}/`), never);
    expect(cut.responseExcerpt).toBe(`\ufffdA${"é".repeat(511)}`);
  });

  it("records no excerpt for an empty or blank answer", async () => {
    const target = await receiver(answering(503, " \n"));
    const outcome = await sender().send(delivery(`${target.origin}/`), never);
    expect(outcome).not.toHaveProperty("responseExcerpt");
  });

  it("reuses a kept-alive connection for the next attempt to the same origin", async () => {
    const target = await receiver(answering(200, "ok"));
    const shared = sender();
    await shared.send(delivery(`${target.origin}/`), never);
    // undici marks the connection idle just after the body ends; attempts are never back to back anyway.
    await new Promise((resolve) => setTimeout(resolve, 20));
    await shared.send(delivery(`${target.origin}/`), never);
    expect(target.requests).toHaveLength(2);
    expect(target.connections).toBe(1);
  });

  it("writes nothing once mayWrite says no, after waiting for a connection (a claim that ran out)", async () => {
    const answers: (() => void)[] = [];
    const target = await receiver((_request, response) => answers.push(() => response.writeHead(204).end()));
    const oneConnection = sender({ maxConnectionsPerOrigin: 1 });
    const first = oneConnection.send(delivery(`${target.origin}/`), never);
    let held = true;
    const second = oneConnection.send({ ...delivery(`${target.origin}/`), mayWrite: () => held }, never);
    await expect.poll(() => target.requests.length).toBe(1);
    // The claim runs out while the second waits for the origin's only connection.
    held = false;
    answers.shift()!();
    expect(await first).toMatchObject({ ok: true, statusCode: 204 });
    expect(await second).toMatchObject({ ok: false, statusCode: null });
    expect(target.requests).toHaveLength(1);
  });

  it.each([301, 302, 303, 307, 308])("does not follow a %i redirect", async (status) => {
    const elsewhere = await receiver(answering(200));
    const target = await receiver(answering(status, "", { location: `${elsewhere.origin}/stolen` }));
    const outcome = await sender().send(delivery(`${target.origin}/`), never);

    expect(outcome).toEqual({
      ok: false,
      statusCode: status,
      error: `redirect not followed (${status})`,
      durationMs: expect.any(Number),
    });
    expect(elsewhere.connections).toBe(0);
    expect(elsewhere.requests).toHaveLength(0);
  });

  it("abandons a receiver that accepts the request and never answers, at the attempt deadline", async () => {
    const target = await receiver(() => {});
    const outcome = await sender({ attemptTimeoutMs: 300 }).send(delivery(`${target.origin}/`), never);

    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "timeout", failure: "timeout" });
    // Not before the deadline. The receiver never answers, so only the deadline ends the attempt at all.
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
    expect(target.requests).toHaveLength(1);
  });

  it("counts the body against the deadline: headers then silence is a timeout with the status code", async () => {
    const target = await receiver((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" });
      response.write("partial");
    });
    const outcome = await sender({ attemptTimeoutMs: 300 }).send(delivery(`${target.origin}/`), never);
    expect(outcome).toMatchObject({ ok: false, statusCode: 200, error: "timeout" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(290);
  });

  it.each([200, 500])(
    "reads at most the cap of an endless %i body, then drops the connection",
    async (status) => {
      let written = 0;
      const target = await receiver((_request, response) => {
        response.writeHead(status, { "content-type": "application/octet-stream" });
        const chunk = Buffer.alloc(16 * 1024, 120);
        const pump = (): void => {
          while (!response.destroyed && written < 512 * 1024 * 1024) {
            written += chunk.length;
            if (!response.write(chunk)) return void response.once("drain", pump);
          }
        };
        response.on("close", () => {});
        pump();
      });
      const closed = target.nextClose();
      const outcome = await sender({ attemptTimeoutMs: 5_000, maxResponseBytes: 64 * 1024 }).send(
        delivery(`${target.origin}/`),
        never,
      );

      expect(outcome.statusCode).toBe(status);
      expect(outcome.ok).toBe(status === 200);
      await closed;
      // Socket buffers take some, but nowhere near the endless body.
      expect(written).toBeLessThan(64 * 1024 * 1024);
    },
  );

  it("reports a refused connection", async () => {
    const closedReceiver = await startReceiver(answering(200));
    await closedReceiver.close();
    const outcome = await sender().send(delivery(`${closedReceiver.origin}/`), never);
    expect(outcome).toEqual({
      ok: false,
      statusCode: null,
      error: "ECONNREFUSED",
      durationMs: expect.any(Number),
      failure: "connect_error",
    });
  });

  it("reports a connection closed without an answer", async () => {
    const target = await receiver((_request, response) => response.socket?.destroy());
    const outcome = await sender().send(delivery(`${target.origin}/`), never);
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "connection closed" });
  });

  it("stops when the caller aborts, mid-request or before", async () => {
    const target = await receiver(() => {});
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const outcome = await sender().send(delivery(`${target.origin}/`), controller.signal);
    // The receiver never answers: only the abort ends this attempt.
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "aborted" });

    const quiet = await receiver(answering(200));
    const aborted = await sender().send(delivery(`${quiet.origin}/`), AbortSignal.abort());
    expect(aborted).toMatchObject({ ok: false, error: "aborted" });
    expect(quiet.connections).toBe(0);
  });

  it("delivers to IPv6 loopback", async () => {
    const target = await receiver(answering(204), { host: "::1" });
    expect(await sender().send(delivery(`${target.origin}/`), never)).toMatchObject({
      ok: true,
      statusCode: 204,
    });
  });

  it("connects to the address its resolver gave, and sends the name as Host", async () => {
    const target = await receiver(answering(200));
    const dns = fakeDns({ "hooks.test": ["127.0.0.1"] });
    const outcome = await sender({ resolve: dns.resolve }).send(
      delivery(`http://hooks.test:${target.port}/`),
      never,
    );
    expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
    expect(target.requests[0]!.headers.host).toBe(`hooks.test:${target.port}`);
    expect(dns.questions).toEqual(["hooks.test"]);
  });

  describe("over HTTPS", () => {
    const tls = { key: hooksTestKey, cert: hooksTestCertificate };
    const dns = () => fakeDns({ "hooks.test": ["127.0.0.1"], "other.test": ["127.0.0.1"] });

    it("verifies the certificate against the name while connecting to the resolved address", async () => {
      const target = await receiver(answering(200), { tls });
      const outcome = await sender({
        resolve: dns().resolve,
        trustedCertificates: [hooksTestCertificate],
      }).send(delivery(`https://hooks.test:${target.port}/`), never);
      expect(outcome).toMatchObject({ ok: true, statusCode: 200 });
      expect(target.requests[0]!.headers.host).toBe(`hooks.test:${target.port}`);
    });

    it("fails on a certificate for another name", async () => {
      const target = await receiver(answering(200), { tls });
      const outcome = await sender({
        resolve: dns().resolve,
        trustedCertificates: [hooksTestCertificate],
      }).send(delivery(`https://other.test:${target.port}/`), never);
      expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "ERR_TLS_CERT_ALTNAME_INVALID" });
      expect(target.requests).toHaveLength(0);
    });

    it("fails on a certificate no trusted authority signed", async () => {
      const target = await receiver(answering(200), { tls });
      const outcome = await sender({ resolve: dns().resolve }).send(
        delivery(`https://hooks.test:${target.port}/`),
        never,
      );
      expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "DEPTH_ZERO_SELF_SIGNED_CERT" });
      expect(target.requests).toHaveLength(0);
    });
  });

  it("counts DNS in the connect timeout", async () => {
    const outcome = await sender({
      connectTimeoutMs: 200,
      resolve: () => new Promise(() => {}),
    }).send(delivery("http://slow-dns.test/"), never);
    // The lookup never ends: only the connect timeout ends this attempt.
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "connect timeout" });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(190);
  });

  it("reports a name that does not resolve by its code", async () => {
    const outcome = await sender({ resolve: fakeDns({}).resolve }).send(
      delivery("http://nowhere.test/"),
      never,
    );
    expect(outcome).toMatchObject({ ok: false, statusCode: null, error: "ENOTFOUND" });
  });

  it("keeps at most maxConcurrency attempts in flight", async () => {
    let inFlight = 0;
    let peak = 0;
    const target = await receiver((_request, response) => {
      inFlight++;
      peak = Math.max(peak, inFlight);
      setTimeout(() => {
        inFlight--;
        response.end();
      }, 50);
    });
    const limited = sender({ maxConcurrency: 2 });
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () => limited.send(delivery(`${target.origin}/`), never)),
    );
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
    expect(peak).toBe(2);
  });

  it("refuses malformed URLs without a connection", async () => {
    const outcome = await sender().send(delivery("http://user:pw@127.0.0.1:1/"), never);
    expect(outcome).toMatchObject({
      ok: false,
      statusCode: null,
      error: "refused url: callback_url must not contain credentials",
      failure: "refused",
    });
  });
});
