/**
 * The dashboard on PostgreSQL with several processes, in real Chromium: two
 * API processes (A and B) and a worker share one database. A browser signed
 * in on A watches tasks created through B appear and finish without a reload
 * (and a browser on B sees A's); what the dashboard changes on A (keys,
 * redelivery, test events) is what B and the worker act on. Service time at
 * 30x: room for a worker on a busy machine before the 10-minute deadline
 * (20 real seconds) ends a task.
 *
 * Without PostgreSQL on the machine the suite skips with one line saying how
 * to enable it; under CI=true it fails instead.
 */

import { GenVideo } from "@genvideo/sdk";
import {
  eventually,
  type RunningServer,
  removeDataDir,
  startServer,
  temporaryDataDir,
} from "@genvideo/server/testing";
import { launchChromium } from "@genvideo/server/testing/browser";
import {
  createDatabaseOn,
  postgresForTests,
  postgresTestable,
  type TestPostgres,
} from "@genvideo/server/testing/postgres";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { audit, createKeyInPage, keyRowId, startReceiver } from "./support.js";

const SERVICE_ENV = {
  GENVIDEO_RENDERER: "fixture",
  GENVIDEO_TIME_SCALE: "30",
  GENVIDEO_RATE_LIMITS: "off",
  GENVIDEO_ALLOW_INSECURE_CALLBACKS: "1",
};
/** Three processes start on a machine that may be busy. */
const START_TIMEOUT_MS = 180_000;
/** Long enough for anything that takes a few seconds of real time on a loaded machine. */
const LIVE_TIMEOUT_MS = 45_000;

// Each test waits on several things that take seconds of real time: more than the project's 60 s in all on a loaded machine.
describe.skipIf(!postgresTestable())(
  "the dashboard on PostgreSQL, two API processes and a worker",
  {
    timeout: 180_000,
  },
  () => {
    let postgres: TestPostgres | null = null;
    let dataDir: string | undefined;
    const servers: RunningServer[] = [];
    let apiA: RunningServer;
    let apiB: RunningServer;
    let browser: Browser;
    let context: BrowserContext;
    let onA: Page;
    let onB: Page;
    let receiver: Awaited<ReturnType<typeof startReceiver>>;
    let printed: { apiKey: string; link: string };

    beforeAll(async () => {
      postgres = await postgresForTests();
      if (!postgres) throw new Error("no PostgreSQL to test against");
      const url = await createDatabaseOn(
        postgres.url,
        `dashboard_e2e_${process.pid}_${Date.now().toString(36)}`,
      );
      // One machine: the processes share a data directory (the worker writes videos the API processes serve).
      dataDir = temporaryDataDir();
      const start = async (role: "api" | "worker", bootstrap: boolean) => {
        const server = await startServer({
          dataDir,
          bootstrap,
          startTimeoutMs: START_TIMEOUT_MS,
          env: { ...SERVICE_ENV, GENVIDEO_DATABASE_URL: url, GENVIDEO_ROLE: role },
        });
        servers.push(server);
        return server;
      };
      // A starts first and alone: its first start creates the account and prints the key and link.
      apiA = await start("api", false);
      printed = {
        apiKey: /^(gen_sk_\S+)$/m.exec(apiA.output())![1]!,
        link: /^(http\S+\/dashboard\/sign-in\?token=\S+)$/m.exec(apiA.output())![1]!,
      };
      [apiB] = await Promise.all([start("api", false), start("worker", false)]);
      receiver = await startReceiver();
      browser = await launchChromium();
      context = await browser.newContext({ viewport: { width: 1100, height: 760 } });
      onA = await context.newPage();
      onB = await context.newPage();
    }, START_TIMEOUT_MS + 60_000);

    afterAll(async () => {
      await browser?.close();
      await receiver?.close();
      const codes = await Promise.all(servers.map((server) => server.stop()));
      if (dataDir) removeDataDir(dataDir);
      await postgres?.stop();
      expect(codes.every((code) => code === 0)).toBe(true);
    }, 60_000);

    const sdk = (server: RunningServer, apiKey = printed.apiKey) =>
      new GenVideo({ apiKey, baseUrl: server.url, maxRetries: 0 });
    const at = (server: RunningServer, path: string) => new URL(path, server.url).href;
    const accountStatus = async (server: RunningServer, apiKey: string) =>
      (await fetch(at(server, "/api/gen/account"), { headers: { authorization: `Bearer ${apiKey}` } }))
        .status;
    /** Reloads the page until its main text passes `check` (the worker's work shows up). */
    const reloadUntil = (page: Page, check: (text: string) => boolean, what: string) =>
      eventually(
        async () => {
          await page.reload();
          return check((await page.locator("main").textContent()) ?? "") ? true : undefined;
        },
        LIVE_TIMEOUT_MS,
        what,
      );

    it("signs in on A; the session opens the dashboard on B too (sessions live in the database)", async () => {
      const link = new URL(printed.link);
      expect(link.origin).toBe(new URL(apiA.url).origin);
      await onA.goto(at(apiA, link.pathname + link.search));
      await onA.getByRole("button", { name: "Sign in" }).click();
      await onA.waitForURL(/\/dashboard\/tasks$/);
      // Both processes listen on 127.0.0.1: a cookie is not scoped by port, so B gets the same session.
      await onB.goto(at(apiB, "/dashboard/tasks"));
      expect(onB.url()).toBe(at(apiB, "/dashboard/tasks"));
    });

    it("shows tasks created through B appear and finish on the list open on A, without a reload (and A's on B)", async () => {
      await onA.goto(at(apiA, "/dashboard/tasks"));
      await onB.goto(at(apiB, "/dashboard/tasks"));
      for (const page of [onA, onB])
        await page.evaluate(() => Object.assign(globalThis, { notReloaded: true }));
      for (const page of [onA, onB])
        await page.locator("#live-status", { hasText: "Live:" }).waitFor({ timeout: LIVE_TIMEOUT_MS });

      const slow = (await sdk(apiB).createTask({ prompt: "on B, slow [[delay:240s]]" })).task_id;
      // Eight real seconds of work: the row shows up on A while the task is still running.
      await onA
        .locator(`#task-${slow}:is([data-state="queued"], [data-state="processing"])`)
        .waitFor({ timeout: LIVE_TIMEOUT_MS });
      const fromB = (await sdk(apiB).createTask({ prompt: "on B" })).task_id;
      const failed = (await sdk(apiB).createTask({ prompt: "on B [[fail:UNSAFE_CONTENT]]" })).task_id;
      const fromA = (await sdk(apiA).createTask({ prompt: "on A" })).task_id;

      for (const page of [onA, onB]) {
        await page.locator(`#task-${fromB}[data-state="completed"]`).waitFor({ timeout: LIVE_TIMEOUT_MS });
        await page.locator(`#task-${failed}[data-state="failed"]`).waitFor({ timeout: LIVE_TIMEOUT_MS });
        await page.locator(`#task-${fromA}[data-state="completed"]`).waitFor({ timeout: LIVE_TIMEOUT_MS });
        await page.locator(`#task-${slow}[data-state="completed"]`).waitFor({ timeout: LIVE_TIMEOUT_MS });
        expect(await page.evaluate(() => (globalThis as { notReloaded?: boolean }).notReloaded)).toBe(true);
      }
      await audit(onA, "tasks-postgres", { screenshot: false });

      // The task page on A shows the video the worker made and the process serves from the shared storage.
      await onA.goto(at(apiA, `/dashboard/tasks/${fromB}`));
      const video = await onA.locator("video").getAttribute("src");
      expect((await fetch(new URL(video!, apiA.url))).status).toBe(200);
    });

    it("a key created on A works on B at once, its use on B shows on A, and revoked on A it is refused by B", async () => {
      await onA.goto(at(apiA, "/dashboard/keys"));
      const form = onA.locator('form[action="/dashboard/keys"]');
      const posted = {
        _csrf: await form.locator("input[name=_csrf]").inputValue(),
        _form: await form.locator("input[name=_form]").inputValue(),
        name: "made on A",
        expires: "never",
      };
      const { key } = await createKeyInPage(onA, "made on A");
      expect(key).toMatch(/^gen_sk_/);
      expect(await accountStatus(apiB, key)).toBe(200);

      // The same form posted again to B (a reload behind a load balancer) makes and shows no second key.
      await onB.goto(at(apiB, "/dashboard/keys"));
      const rows = await onB.locator("tbody tr[id^='key-']").count();
      const again = await onB.evaluate(async (fields) => {
        const response = await fetch("/dashboard/keys", {
          method: "POST",
          body: new URLSearchParams(fields),
        });
        return response.text();
      }, posted);
      expect(again).toContain("already created");
      expect(again).not.toContain('id="new-key"');
      await onB.reload();
      expect(await onB.locator("tbody tr[id^='key-']").count()).toBe(rows);

      // B writes "last used" in the background (coalesced), never on the request itself.
      await onA.goto(at(apiA, "/dashboard/keys"));
      const row = await keyRowId(onA, key);
      const lastUsed = await eventually(
        async () => {
          await onA.reload();
          const text = await onA.locator(`#${row} td[data-last-used]`).textContent();
          return text !== "never" ? text : undefined;
        },
        LIVE_TIMEOUT_MS,
        '"last used" of a key used on B',
      );
      expect(lastUsed).toMatch(/UTC$/);

      await onA.locator(`#${row} a[href$="/revoke"]`).click();
      expect(await accountStatus(apiB, key)).toBe(200); // nothing happens before the confirmation
      await onA.getByRole("button", { name: "Revoke key" }).click();
      await onA.locator("main", { hasText: "Revoked" }).waitFor();
      expect(await accountStatus(apiB, key)).toBe(401);
      expect(await accountStatus(apiA, key)).toBe(401);
    });

    it("a redelivery requested on A is delivered by the worker", async () => {
      receiver.setStatus(500);
      const { task_id } = await sdk(apiB).createTask({
        prompt: "hook me [[fail:GENERATION_FAILED]]",
        callback_url: receiver.url,
      });
      await onA.goto(at(apiA, `/dashboard/tasks/${task_id}`));
      // Five attempts 30 s of service time apart: four real seconds at 30x.
      await reloadUntil(
        onA,
        (text) => text.includes("5 attempts") && text.includes("HTTP 500"),
        "five refused attempts",
      );
      const refused = receiver.received.length;

      receiver.setStatus(200);
      await onA.getByRole("button", { name: "Redeliver the webhook" }).click();
      await reloadUntil(
        onA,
        (text) => text.includes("delivered") && text.includes("HTTP 200"),
        "the redelivery",
      );
      expect(receiver.received.length).toBe(refused + 1);
      expect(JSON.parse(receiver.received.at(-1)!.body)).toMatchObject({ task_id });
      await audit(onA, "task-webhooks-postgres", { screenshot: false });
    });

    it("a test event sent from A is in the delivery log B shows, marked as a test", async () => {
      await onA.goto(at(apiA, "/dashboard/webhooks"));
      const seen = receiver.received.length;
      await onA.getByLabel("Receiver URL").fill(receiver.url);
      await onA.getByRole("button", { name: "Send a signed test event" }).click();
      await onA.locator("[role=status]", { hasText: "HTTP 200" }).waitFor();
      const id = receiver.received[seen]!.headers["webhook-id"] as string;
      await onB.goto(at(apiB, "/dashboard/webhooks"));
      expect(await onB.locator("section[data-test-event]", { hasText: id }).textContent()).toMatch(
        /delivered[\s\S]*test event[\s\S]*HTTP 200/,
      );
      await audit(onB, "webhooks-postgres", { screenshot: false });
    });
  },
);
