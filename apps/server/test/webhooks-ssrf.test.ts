/**
 * The callback target policy at the level of the real server, without the
 * development flag: a create naming a target that is not public is refused
 * with 400 INVALID_CALLBACK_URL and costs nothing, and a target accepted
 * while the flag was on is refused again at delivery once it is off, without
 * a connection. The full table of address forms is tested where the policy
 * lives (src/webhooks/callback-url.test.ts, webhook-sender-ssrf.test.ts and
 * the engine's callback-url tests); this is a handful of each kind.
 */
import { afterAll, describe, expect, it } from "vitest";
import { createTask, credits } from "./support/api.js";
import { answering, startReceiver, type TestReceiver } from "./support/receivers.js";
import { eventually, removeDataDir, startServer, temporaryDataDir } from "./support/server-process.js";

const ENV = { GENVIDEO_RENDERER: "fixture", GENVIDEO_RATE_LIMITS: "off" };
const dataDir = temporaryDataDir();
let receiver: TestReceiver | undefined;

afterAll(async () => {
  await receiver?.close();
  removeDataDir(dataDir);
});

const refused = [
  ["plain http without the development flag", "http://hooks.example.com/genvideo"],
  ["IPv4 loopback", "https://127.0.0.1/hook"],
  ["loopback, short form", "https://127.1/hook"],
  ["loopback, one decimal number", "https://2130706433/hook"],
  ["loopback, hex and octal parts", "https://0x7f.0.0.01/hook"],
  ["IPv6 loopback", "https://[::1]/hook"],
  ["IPv4-mapped IPv6 loopback", "https://[::ffff:127.0.0.1]/hook"],
  ["NAT64-embedded loopback", "https://[64:ff9b::7f00:1]/hook"],
  ["private 10/8", "https://10.0.0.8/hook"],
  ["private 192.168/16", "https://192.168.1.20:8443/hook"],
  ["shared address space", "https://100.64.0.1/hook"],
  ["cloud metadata", "https://169.254.169.254/latest/meta-data/"],
  ["IPv6 cloud metadata", "https://[fd00:ec2::254]/hook"],
  ["unspecified", "https://0.0.0.0/hook"],
  ["localhost", "https://localhost/hook"],
  ["a name under .localhost", "https://api.localhost/hook"],
  ["credentials in the URL", "https://user:secret@hooks.example.com/hook"],
] as const;

describe("without GENVIDEO_ALLOW_INSECURE_CALLBACKS", () => {
  it("refuses each non-public form at creation: 400 INVALID_CALLBACK_URL, no charge, no task", async () => {
    const server = await startServer({ dataDir, env: ENV });
    try {
      const before = await credits(server);
      for (const [what, callbackUrl] of refused) {
        const response = await server.api("/api/gen/generate", {
          json: { prompt: "a lighthouse", callback_url: callbackUrl },
        });
        const body = (await response.json()) as Record<string, unknown>;
        expect(response.status, `${what}: ${JSON.stringify(body)}`).toBe(400);
        expect(body, what).toMatchObject({
          success: false,
          error: "Bad Request",
          code: "INVALID_CALLBACK_URL",
          message: expect.any(String),
        });
        expect(body.task_id, what).toBeUndefined();
      }
      expect(await credits(server)).toBe(before);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it("refuses at delivery, without a connection, a loopback target accepted while the flag was on", async () => {
    receiver = await startReceiver(answering(200));
    const port = receiver.port;
    const targets = {
      plainHttp: `http://127.0.0.1:${port}/hook`,
      loopbackLiteral: `https://127.0.0.1:${port}/hook`,
      localhostName: `https://localhost:${port}/hook`,
    };
    // With the flag and real time: the tasks are still rendering (60 s) when this server stops.
    const permissive = await startServer({
      dataDir,
      env: { ...ENV, GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1" },
    });
    const taskIds: Record<string, string> = {};
    try {
      for (const [name, url] of Object.entries(targets))
        taskIds[name] = await createTask(permissive, { prompt: `refuse ${name}`, callback_url: url });
    } finally {
      expect(await permissive.stop()).toBe(0);
    }

    // Without the flag, 600x: the tasks finish at once and their webhooks are attempted.
    const strict = await startServer({ dataDir, env: { ...ENV, GENVIDEO_TIME_SCALE: "600" } });
    try {
      const errors = async (taskId: string) =>
        eventually(
          async () => {
            const response = await strict.api(`/api/gen/tasks/${taskId}/webhooks`);
            const { events } = (await response.json()) as {
              events: { state: string; attempts: { status_code: number | null; error: string }[] }[];
            };
            const event = events[0];
            return event?.state === "failed" ? event.attempts : undefined;
          },
          10_000,
          `the webhook of ${taskId} to fail`,
        );
      const expected = {
        plainHttp: "refused url: not https",
        loopbackLiteral: "refused address 127.0.0.1 (loopback)",
        localhostName: "refused host localhost (loopback)",
      };
      for (const [name, error] of Object.entries(expected)) {
        const attempts = await errors(taskIds[name]!);
        expect(
          attempts.map((attempt) => [attempt.status_code, attempt.error]),
          name,
        ).toEqual(Array(5).fill([null, error]));
      }
      expect(receiver.connections).toBe(0);
      expect(receiver.requests).toHaveLength(0);
    } finally {
      expect(await strict.stop()).toBe(0);
    }
  });
});
