/**
 * The server around the API: first start, health and docs routes, logs that
 * never carry a secret, configuration errors, and graceful shutdown.
 */
import { spawn } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTask } from "./support/api.js";
import {
  cliCommand,
  removeDataDir,
  runCli,
  serverEnvironment,
  startServer,
  TEST_API_KEY,
  TEST_WEBHOOK_SECRET,
  temporaryDataDir,
} from "./support/server-process.js";

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) removeDataDir(directory);
});

function scratch(): string {
  const directory = temporaryDataDir();
  directories.push(directory);
  return directory;
}

describe("first start", () => {
  it("shows the key, the webhook secret and the sign-in link on stderr only: the structured log on stdout holds none", async () => {
    const server = await startServer({ bootstrap: false, env: { GENVIDEO_RENDERER: "fixture" } });
    directories.push(server.dataDir);
    const shown = server.stderr();
    const key = /^(gen_sk_\S+)$/m.exec(shown)?.[1];
    const secret = /^(whsec_\S+)$/m.exec(shown)?.[1];
    const token = /\/dashboard\/sign-in\?token=(\S+)$/m.exec(shown)?.[1];
    expect([key, secret, token].every(Boolean), shown).toBe(true);
    // Use the server a little, so the log has requests in it too.
    expect((await server.api("/api/gen/account", { key: key! })).status).toBe(200);
    expect(await server.stop()).toBe(0);

    const lines = server
      .stdout()
      .split("\n")
      .filter((line) => line !== "");
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    for (const value of [key!, secret!, token!, secret!.slice("whsec_".length)])
      expect(server.stdout()).not.toContain(value);
  });

  it("creates the default account and prints its key and secret once, on the first start only", async () => {
    const dataDir = scratch();
    const first = await startServer({ dataDir, bootstrap: false, env: { GENVIDEO_RENDERER: "fixture" } });
    const lines = first.output().split("\n");
    const keys = lines.filter((line) => /^gen_sk_[0-9A-Za-z]{38}$/.test(line));
    const secrets = lines.filter((line) => /^whsec_[A-Za-z0-9+/=]+$/.test(line));
    expect(keys).toHaveLength(1);
    expect(secrets).toHaveLength(1);
    const key = keys[0]!;
    const account = await first.api("/api/gen/account", { key });
    expect(await account.json()).toMatchObject({ name: "default", credits: 1000 });
    expect(await first.stop()).toBe(0);

    const second = await startServer({ dataDir, bootstrap: false, env: { GENVIDEO_RENDERER: "fixture" } });
    expect(second.output()).not.toMatch(/gen_sk_|whsec_|token=/);
    // Every start, not only the first, says where the dashboard is and how to get a sign-in link.
    for (const server of [first, second])
      expect(server.stderr()).toContain(
        `genvideo-server: dashboard at ${server.url}/dashboard; a sign-in link: genvideo-server dashboard link --account default`,
      );
    expect((await second.api("/api/gen/account", { key })).status).toBe(200);
    expect(await second.stop()).toBe(0);
  });

  it("puts ./.genvideo where the user ran the command (INIT_CWD), not in the package", async () => {
    const invocation = scratch();
    const packageDir = scratch();
    const env = serverEnvironment(invocation, { INIT_CWD: invocation }, false);
    delete (env as Record<string, string | undefined>).GENVIDEO_DATA_DIR;
    const result = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, [...cliCommand(), "accounts", "list"], { cwd: packageDir, env });
      child.once("exit", resolve);
    });
    expect(result).toBe(0);
    expect(existsSync(join(invocation, ".genvideo", "genvideo.db"))).toBe(true);
    expect(existsSync(join(packageDir, ".genvideo"))).toBe(false);
  });
});

describe("the server's own routes, logs and shutdown", () => {
  it("serves health, readiness, the OpenAPI document and docs; logs every request without secrets", async () => {
    const server = await startServer({ env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_TIME_SCALE: "600" } });
    directories.push(server.dataDir);
    expect(await (await server.fetch("/healthz")).json()).toEqual({ status: "ok" });
    expect(await (await server.fetch("/readyz")).json()).toEqual({ status: "ready" });
    const openapi = await server.fetch("/openapi.json");
    expect(openapi.status).toBe(200);
    const document = (await openapi.json()) as {
      openapi: string;
      paths: Record<string, unknown>;
      servers: { url: string }[];
    };
    expect(document.openapi).toMatch(/^3\.1/);
    // The server names itself, so a client generated from the document reaches it.
    expect(document.servers[0]?.url).toBe(server.url.replace(/\/$/, ""));
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining(["/api/gen/generate", "/api/gen/status/{task_id}"]),
    );
    const docs = await server.fetch("/docs");
    expect(docs.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await docs.text();
    // Rendered in the browser from this server's own scripts (test/docs-page.test.ts opens it).
    expect(html).not.toMatch(/<script[^>]+src="https?:|<link[^>]+href="https?:/);

    // The key goes everywhere a careless logger might pick it up.
    await createTask(server, { prompt: "log me", callback_url: "https://127.0.0.1/x" }).catch(
      () => undefined,
    );
    await createTask(server, { prompt: "log me too" });
    await server.fetch(`/api/gen/account?api_key=${TEST_API_KEY}`);
    await server.fetch(`/docs?key=${TEST_API_KEY}`);
    await server.fetch("/api/gen/account", { headers: { authorization: `Basic ${TEST_API_KEY}` } });
    await server.fetch("/api/gen/account", { headers: { authorization: `Bearer ${TEST_API_KEY}x` } });
    await server.api("/api/gen/status/not-a-uuid", { headers: { "x-api-key": TEST_API_KEY } });
    expect(await server.stop()).toBe(0);

    const output = server.output();
    expect(output).not.toContain(TEST_API_KEY);
    expect(output).not.toContain(TEST_WEBHOOK_SECRET);
    const requests = server.logRecords().filter((record) => record.msg === "request");
    expect(requests.length).toBeGreaterThanOrEqual(8);
    for (const record of requests) {
      expect(record).toMatchObject({
        level: "info",
        requestId: expect.any(String),
        method: expect.stringMatching(/^(GET|POST)$/),
        path: expect.stringMatching(/^\//),
        status: expect.any(Number),
        durationMs: expect.any(Number),
      });
      expect(record.path).not.toContain("?");
    }
    expect(server.logRecords().map((record) => record.msg)).toEqual(
      expect.arrayContaining(["listening", "shutting down", "stopped"]),
    );
  });

  it("points / to the API reference; a wrong method on an API path is a 405 naming the right one", async () => {
    const server = await startServer({ env: { GENVIDEO_RENDERER: "fixture" } });
    directories.push(server.dataDir);
    const root = await server.fetch("/");
    expect(root.status).toBe(200);
    expect(await root.json()).toMatchObject({ docs: "/docs", openapi: "/openapi.json" });
    expect(root.headers.get("link")).toContain('</docs>; rel="service-doc"');
    const wrongMethod = await server.api("/api/gen/generate", { method: "GET" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await wrongMethod.json()).toMatchObject({
      error: "Method Not Allowed",
      code: "METHOD_NOT_ALLOWED",
    });
    expect(await server.stop()).toBe(0);
  });

  it.each([
    ["0", false, "insecure callbacks off"],
    ["1", true, "insecure callbacks allowed"],
  ])(
    "says at start whether insecure callbacks are allowed (GENVIDEO_ALLOW_INSECURE_CALLBACKS=%s)",
    async (flag, allowed, line) => {
      const server = await startServer({
        env: { GENVIDEO_RENDERER: "fixture", GENVIDEO_ALLOW_INSECURE_CALLBACKS: flag },
      });
      directories.push(server.dataDir);
      expect(await server.stop()).toBe(0);
      expect(server.logRecords().find((record) => record.msg === "listening")).toMatchObject({
        insecureCallbacks: allowed,
      });
      expect(server.output()).toContain(`genvideo-server: ${line}`);
    },
  );

  it.each([
    [{ PORT: "http" }, /^genvideo-server: PORT must be a whole number/],
    [{ GENVIDEO_ROLE: "worker" }, /^genvideo-server: GENVIDEO_ROLE=worker needs PostgreSQL/],
    [
      { GENVIDEO_DATABASE_URL: "postgres://app:secret@127.0.0.1:1/genvideo" },
      /^genvideo-server: GENVIDEO_DATABASE_URL: cannot open postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/genvideo: .*ECONNREFUSED/,
    ],
    [{ GENVIDEO_TIME_SCALE: "-1" }, /^genvideo-server: GENVIDEO_TIME_SCALE must be/],
    [
      { GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS: "60000" },
      /^genvideo-server: GENVIDEO_WEBHOOK_ATTEMPT_TIMEOUT_MS must be a whole number from 100 to 30000/,
    ],
    [{ GENVIDEO_BOOTSTRAP_API_KEY: "short" }, /^genvideo-server: GENVIDEO_BOOTSTRAP_API_KEY must be/],
    [
      { GENVIDEO_BOOTSTRAP_API_KEY: `gen_sk_${"A".repeat(38)}` },
      /^genvideo-server: GENVIDEO_BOOTSTRAP_API_KEY .*checksum/,
    ],
  ])("bad configuration %o stops the start with one line and exit code 2", async (env, message) => {
    const result = await runCli(["start"], scratch(), env);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr.trim()).toMatch(message);
    expect(result.stdout).toBe("");
  });

  it("names the setting when the port is taken or the database cannot be opened", async () => {
    const running = await startServer({ env: { GENVIDEO_RENDERER: "fixture" } });
    directories.push(running.dataDir);
    const port = new URL(running.url).port;
    const taken = await runCli(["start"], scratch(), { PORT: port });
    expect(taken.code).toBe(2);
    expect(taken.stderr.trim()).toBe(`genvideo-server: PORT ${port} is already in use on 127.0.0.1`);
    expect(await running.stop()).toBe(0);

    // A file where the database's directory should be.
    const directory = scratch();
    writeFileSync(join(directory, "blocker"), "");
    const path = join(directory, "blocker", "x.db");
    const unopenable = await runCli(["start"], directory, { GENVIDEO_DATABASE_URL: `sqlite:${path}` });
    expect(unopenable.code).toBe(2);
    expect(unopenable.stderr.trim().split("\n")).toHaveLength(1);
    expect(unopenable.stderr).toContain(`genvideo-server: GENVIDEO_DATABASE_URL: cannot open sqlite:${path}`);
  });

  it("prints usage with --help, and exits 2 on an unknown command", async () => {
    const help = await runCli(["--help"], scratch());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("Usage: genvideo-server <command>");
    for (const command of ["start", "accounts create", "keys rotate", "webhooks redeliver"]) {
      expect(help.stdout).toContain(command);
    }
    const unknown = await runCli(["launch"], scratch());
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "launch"');
  });
});
