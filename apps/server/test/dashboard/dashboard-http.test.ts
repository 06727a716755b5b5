/**
 * The dashboard's sign-in and defences over HTTP, against the real server:
 * one-time links, session cookies, sign-out everywhere, CSRF and origin
 * checks, the Host allow-list, security headers, and one account never
 * reading another's task. The browser tests (tests/dashboard-e2e/test/) cover
 * the pages themselves.
 */
import { verifyWebhook } from "@genvideo/sdk";
import { describe, expect, it } from "vitest";
import { createTask } from "../support/api.js";
import {
  afterRedirect,
  csrfTokenIn,
  getWithHost,
  onServer,
  postSignIn,
  printedSignInLink,
  sessionCookie,
} from "../support/dashboard.js";
import { answering, startReceiver } from "../support/receivers.js";
import { eventually, FAST_SERVICE_ENV, runCliInProcess } from "../support/server-process.js";
import { useServer } from "../support/use-server.js";

const server = useServer({ bootstrap: false, env: { ...FAST_SERVICE_ENV } });
/** A well-formed secret no account has. */
const TEST_OTHER_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";

async function freshLink(account = "default"): Promise<string> {
  const result = await runCliInProcess(["dashboard", "link", "--account", account], server.dataDir);
  expect(result.code, result.stderr).toBe(0);
  return printedSignInLink(result.stdout);
}

async function signedIn(account = "default"): Promise<string> {
  const response = await postSignIn(server, await freshLink(account));
  expect(response.status).toBe(303);
  return sessionCookie(response);
}

function page(path: string, cookie: string): Promise<Response> {
  return fetch(new URL(path, server.url), { headers: { cookie }, redirect: "manual" });
}

function post(
  path: string,
  cookie: string,
  form: Record<string, string>,
  origin = new URL(server.url).origin,
): Promise<Response> {
  return fetch(new URL(path, server.url), {
    method: "POST",
    redirect: "manual",
    headers: { cookie, origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form),
  });
}

describe("sign-in", () => {
  it("prints a link at first start that signs in once, into an HttpOnly SameSite=Strict cookie", async () => {
    const link = printedSignInLink(server.output());
    const landing = await fetch(onServer(server, link));
    expect(landing.status).toBe(200);
    expect(await landing.text()).toContain('action="/dashboard/sign-in"');

    const first = await postSignIn(server, link);
    expect(first.status).toBe(303);
    expect(first.headers.get("location")).toBe("/dashboard/tasks");
    const cookie = first.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/); // http public URL
    expect((await page("/dashboard/tasks", sessionCookie(first))).status).toBe(200);

    const again = await postSignIn(server, link);
    expect(again.status).toBe(400);
    expect(again.headers.get("set-cookie")).toBeNull();
  });

  it("refuses unknown tokens, and pages without a session send to sign-in", async () => {
    const response = await postSignIn(server, `${server.url}/dashboard/sign-in?token=${"x".repeat(43)}`);
    expect(response.status).toBe(400);
    const anonymous = await fetch(new URL("/dashboard/keys", server.url), { redirect: "manual" });
    expect(anonymous.status).toBe(303);
    expect(anonymous.headers.get("location")).toBe("/dashboard/sign-in");
  });

  it("stores neither tokens nor links in the log", async () => {
    const link = await freshLink();
    await postSignIn(server, link);
    const token = new URL(link).searchParams.get("token")!;
    expect(
      server
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{") && line.includes(token)),
    ).toEqual([]);
  });

  it("signs out one session, or every session of the account", async () => {
    const one = await signedIn();
    const two = await signedIn();
    const csrf = csrfTokenIn(await (await page("/dashboard/tasks", one)).text());
    expect((await post("/dashboard/sign-out", one, { _csrf: csrf })).status).toBe(303);
    expect((await page("/dashboard/tasks", one)).status).toBe(303);
    expect((await page("/dashboard/tasks", two)).status).toBe(200);

    const three = await signedIn();
    const csrfThree = csrfTokenIn(await (await page("/dashboard/tasks", three)).text());
    expect((await post("/dashboard/sign-out-everywhere", three, { _csrf: csrfThree })).status).toBe(303);
    expect((await page("/dashboard/tasks", two)).status).toBe(303);
    expect((await page("/dashboard/tasks", three)).status).toBe(303);
  });
});

describe("defences", () => {
  it("sends a strict CSP, no framing and no referrer to other origins on every page", async () => {
    const cookie = await signedIn();
    for (const path of [
      "/dashboard/tasks",
      "/dashboard/keys",
      "/dashboard/webhooks",
      "/dashboard/credits",
      "/dashboard/sign-in",
    ]) {
      const response = await page(path, cookie);
      expect(response.status, path).toBe(200);
      const csp = response.headers.get("content-security-policy") ?? "";
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain("unsafe-inline");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("same-origin");
      expect(await response.text()).not.toMatch(/<script(?![^>]*\bsrc=)/);
    }
  });

  it("refuses a change without the CSRF token, with a wrong one, or from another origin", async () => {
    const cookie = await signedIn();
    const csrf = csrfTokenIn(await (await page("/dashboard/keys", cookie)).text());
    const before = (await (await page("/dashboard/keys", cookie)).text()).match(/<tr id="key-/g)?.length ?? 0;
    expect((await post("/dashboard/keys", cookie, { name: "x", expires: "never" })).status).toBe(403);
    expect(
      (await post("/dashboard/keys", cookie, { name: "x", expires: "never", _csrf: `${csrf.slice(1)}A` }))
        .status,
    ).toBe(403);
    const other = await post(
      "/dashboard/keys",
      cookie,
      { name: "x", expires: "never", _csrf: csrf },
      "http://evil.example",
    );
    expect(other.status).toBe(403);
    expect(await other.text()).toMatch(/cross-origin/);
    const after = (await (await page("/dashboard/keys", cookie)).text()).match(/<tr id="key-/g)?.length ?? 0;
    expect(after).toBe(before);
    const ok = await post("/dashboard/keys", cookie, { name: "ci", expires: "never", _csrf: csrf });
    expect(ok.status).toBe(303);
    expect(ok.headers.get("location")).toBe("/dashboard/keys");
    expect(await (await afterRedirect(server, ok, cookie)).text()).toMatch(/gen_sk_[0-9A-Za-z]{38}/);
  });

  it("refuses requests for a host name that is not the server's (DNS rebinding)", async () => {
    const port = new URL(server.url).port;
    const refused = await getWithHost(server, "/dashboard/sign-in", `attacker.example:${port}`);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatch(/DNS rebinding/);
    expect((await getWithHost(server, "/dashboard/sign-in", `localhost:${port}`)).status).toBe(200);
    expect((await getWithHost(server, "/dashboard/sign-in", `127.0.0.1:${port}`)).status).toBe(200);
  });

  it("never shows another account's task, whatever id is typed", async () => {
    const created = await runCliInProcess(
      ["accounts", "create", "mallory", "--credits", "5"],
      server.dataDir,
    );
    expect(created.code).toBe(0);
    const key = /^gen_sk_\S+$/m.exec(
      (await runCliInProcess(["keys", "create", "--account", "mallory"], server.dataDir)).stdout,
    )![0];
    const theirs = await createTask(server, { prompt: "mallory's secret plan" }, key);
    const mine = await signedIn();
    const response = await page(`/dashboard/tasks/${theirs}`, mine);
    expect(response.status).toBe(404);
    expect(await response.text()).not.toContain("secret plan");
    expect(await (await page(`/dashboard/tasks?q=${theirs}`, mine)).text()).not.toContain(
      `id="task-${theirs}"`,
    );
    expect((await page(`/dashboard/tasks/${theirs}/images/0`, mine)).status).toBe(404);
    const csrf = csrfTokenIn(await (await page("/dashboard/tasks", mine)).text());
    expect((await post(`/dashboard/tasks/${theirs}/redeliver`, mine, { _csrf: csrf })).status).toBe(404);
  });
});

describe("delivery log", () => {
  it("shows a bounded excerpt of each receiver's answer, escaped, and the CLI lists it", async () => {
    const markup = '<script>alert("hooked")</script><b>down</b>';
    const receiver = await startReceiver(answering(500, `${markup}${"x".repeat(200 * 1024)}`));
    try {
      expect(
        (await runCliInProcess(["accounts", "create", "hooks", "--credits", "5"], server.dataDir)).code,
      ).toBe(0);
      const key = /^gen_sk_\S+$/m.exec(
        (await runCliInProcess(["keys", "create", "--account", "hooks"], server.dataDir)).stdout,
      )![0];
      const rotated = await runCliInProcess(
        ["webhooks", "rotate-secret", "--account", "hooks", "--overlap", "0"],
        server.dataDir,
      );
      expect(rotated.code, rotated.stderr).toBe(0);
      const taskId = await createTask(
        server,
        { prompt: "excerpt", callback_url: `${receiver.origin}/hook` },
        key,
      );

      const attempts = await eventually(
        async () => {
          const listed = await runCliInProcess(
            ["webhooks", "list", "--task", taskId, "--json"],
            server.dataDir,
          );
          const events = JSON.parse(listed.stdout) as { attempts: { responseExcerpt: string | null }[] }[];
          return events[0]?.attempts.length ? events[0].attempts : undefined;
        },
        10_000,
        "a recorded attempt",
      );
      const excerpt = attempts[0]!.responseExcerpt!;
      expect(excerpt.startsWith(`${markup}xxx`)).toBe(true);
      expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(1024);

      const body = await (await page("/dashboard/webhooks", await signedIn("hooks"))).text();
      expect(body).toContain("&lt;script&gt;alert(&quot;hooked&quot;)&lt;/script&gt;&lt;b&gt;down&lt;/b&gt;");
      expect(body).not.toContain(markup);
      expect(body).not.toContain("x".repeat(1025));
    } finally {
      await receiver.close();
    }
  });

  it("keeps test events in the log with their attempt, marked as test, for their account only, page by page", async () => {
    const receiver = await startReceiver(answering(503, "not today"));
    try {
      const created = await runCliInProcess(
        ["accounts", "create", "tester", "--credits", "5"],
        server.dataDir,
      );
      expect(created.code).toBe(0);
      const webhookSecret = /^(whsec_\S+)$/m.exec(created.stdout)![1]!;
      const tester = await signedIn("tester");
      const csrf = csrfTokenIn(await (await page("/dashboard/webhooks", tester)).text());
      const url = `${receiver.origin}/hook`;
      const sent = await post("/dashboard/webhooks/test", tester, { _csrf: csrf, url });
      expect(sent.status).toBe(303);
      expect(sent.headers.get("location")).toBe("/dashboard/webhooks#test-event");
      const shown = await (await afterRedirect(server, sent, tester)).text();
      expect(shown).toContain("HTTP 503");
      expect(receiver.requests).toHaveLength(1);
      const eventId = receiver.requests[0]!.headers["webhook-id"] as string;
      expect(eventId).toMatch(/^msg_test_[0-9a-f]{32}$/);
      // Signed under the account's secret as a task's webhook is: the SDK's receiver takes it.
      const { body, headers } = receiver.requests[0]!;
      await expect(verifyWebhook(body, headers, webhookSecret)).resolves.toMatchObject({ success: true });
      await expect(verifyWebhook(body, headers, TEST_OTHER_SECRET)).rejects.toThrow(/No webhook signature/);

      // In the log: marked as a test, its attempt with the receiver's answer, a button to send it again.
      const log = await (await page("/dashboard/webhooks", tester)).text();
      const card = log.slice(log.indexOf(`aria-label="Test event ${eventId}"`));
      expect(card).toMatch(/^aria-label="Test event msg_test_[0-9a-f]+" data-test-event>/);
      expect(card.slice(0, card.indexOf("</section>"))).toMatch(
        /state-failed[\s\S]*test event[\s\S]*HTTP 503[\s\S]*not today[\s\S]*Send again/,
      );
      // Another account's log never shows it.
      expect(await (await page("/dashboard/webhooks", await signedIn())).text()).not.toContain(eventId);
      // A bad URL is refused and recorded nowhere.
      const refused = await post("/dashboard/webhooks/test", tester, { _csrf: csrf, url: "ftp://x" });
      expect(await (await afterRedirect(server, refused, tester)).text()).toContain(
        "The test event needs an http(s) URL.",
      );
      expect(receiver.requests).toHaveLength(1);

      // 21 entries: the log's first page holds 20, the next the oldest, nothing twice.
      for (let i = 0; i < 20; i++)
        expect((await post("/dashboard/webhooks/test", tester, { _csrf: csrf, url })).status).toBe(303);
      const ids = (text: string) =>
        [...text.matchAll(/aria-label="Test event (msg_test_[0-9a-f]+)"/g)].map((m) => m[1]);
      const first = await (await page("/dashboard/webhooks", tester)).text();
      const next = /href="(\/dashboard\/webhooks\?after=[^"]+)"/.exec(first)?.[1];
      expect(next).toBeDefined();
      const second = await (await page(next!.replaceAll("&amp;", "&"), tester)).text();
      const all = [...ids(first), ...ids(second)];
      expect(ids(first)).toHaveLength(20);
      expect(new Set(all).size).toBe(21);
      expect(ids(second)).toEqual([eventId]);
    } finally {
      await receiver.close();
    }
  });
});

describe("keys", () => {
  it("creates one key per form: the same form posted again shows no second key", async () => {
    const cookie = await signedIn();
    const form = await (await page("/dashboard/keys", cookie)).text();
    const nonce = /name="_form" value="([^"]+)"/.exec(form)![1]!;
    const fields = { _csrf: csrfTokenIn(form), _form: nonce, name: "once", expires: "never" };
    const keyCount = async () =>
      [...(await (await page("/dashboard/keys", cookie)).text()).matchAll(/<tr id="key-/g)].length;
    const before = await keyCount();

    const submit = async (form: Record<string, string>) =>
      (await afterRedirect(server, await post("/dashboard/keys", cookie, form), cookie)).text();
    const first = await submit(fields);
    expect(first).toContain('id="new-key"');
    const text = await submit(fields);
    expect(text).not.toContain('id="new-key"');
    expect(text).toContain("already created");
    expect(await keyCount()).toBe(before + 1);
    // A fresh form creates another.
    expect(await submit({ ...fields, _form: crypto.randomUUID() })).toContain('id="new-key"');
  });

  it("answers every form with a page that can be reloaded: a new key shows once, then the plain page", async () => {
    const cookie = await signedIn();
    const form = await (await page("/dashboard/keys", cookie)).text();
    const answer = await post("/dashboard/keys", cookie, {
      _csrf: csrfTokenIn(form),
      _form: crypto.randomUUID(),
      name: "reloaded",
      expires: "7d",
    });
    expect(answer.status).toBe(303);
    const flash = answer.headers.get("set-cookie") ?? "";
    expect(flash).toMatch(/^genvideo_flash=[A-Za-z0-9_-]+; Max-Age=60; Path=\/; HttpOnly; SameSite=Strict$/);
    // The cookie is sealed: the key is not in it, nor in the redirect.
    expect(flash).not.toMatch(/gen_sk_/);
    expect(answer.headers.get("location")).toBe("/dashboard/keys");
    const shown = await afterRedirect(server, answer, cookie);
    expect(await shown.text()).toMatch(/id="new-key"[^>]*value="gen_sk_/);
    expect(shown.headers.get("set-cookie")).toMatch(/^genvideo_flash=; Max-Age=0/);
    // The reload (no flash any more) and another session holding the flash get the plain page.
    expect(await (await page("/dashboard/keys", cookie)).text()).not.toContain('id="new-key"');
    const stolen = `${await signedIn()}; ${/^(genvideo_flash=[^;]+)/.exec(flash)![1]}`;
    const elsewhere = await page("/dashboard/keys", stolen);
    expect(elsewhere.status).toBe(200);
    expect(await elsewhere.text()).not.toContain('id="new-key"');
  });

  it("gives every unknown dashboard path the styled page with the navigation", async () => {
    const cookie = await signedIn();
    for (const path of ["/dashboard/webhooks/test", "/dashboard/keys/nope/nothing", "/dashboard/elsewhere"]) {
      const response = await page(path, cookie);
      expect(response.status, path).toBe(404);
      const text = await response.text();
      expect(text, path).toContain('<nav aria-label="Dashboard">');
      expect(text, path).toContain("/dashboard/assets/app.css");
    }
    expect(await (await page("/dashboard/keys/nope/nothing", cookie)).text()).toContain("← All API keys");
  });
});
