/**
 * Page code of the browser test: the mock's handlers under setupWorker, the
 * SDK creating a task from the page, the mock completing it, the page's own
 * handler receiving the signed webhook, and the video URL served to the page.
 */
import { GenVideo, verifyWebhook } from "@genvideo/sdk";
import { HttpResponse, http } from "msw";
import { setupWorker } from "msw/browser";
import { createGenVideoMock } from "../../src/index.js";

const CALLBACK = "https://shop.example.test/hooks/genvideo";

async function run() {
  const mock = createGenVideoMock({ baseUrl: "https://api.genvideo.test", seed: "browser" });
  const hooks: string[] = [];
  const worker = setupWorker(
    ...mock.handlers,
    http.post(CALLBACK, async ({ request }) => {
      const payload = await verifyWebhook(request, mock.webhookSecret);
      hooks.push(`${payload.success} ${payload.message}`);
      return new HttpResponse(null, { status: 204 });
    }),
  );
  await worker.start({ quiet: true, onUnhandledFrame: "error" });
  const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey, dangerouslyAllowBrowser: true });
  const started = performance.now();
  const task = await client.createTask({ prompt: "made in a browser", callback_url: CALLBACK });
  const before = await client.getStatus(task.task_id);
  await mock.tasks.complete(task.task_id);
  const after = await client.getStatus(task.task_id);
  const video = after.status === "completed" ? await fetch(after.video_url) : undefined;
  const bytes = video ? new Uint8Array(await video.arrayBuffer()) : new Uint8Array();
  const unauthorized = await fetch(`${mock.baseUrl}/api/gen/account`);
  return {
    before: before.status,
    after: after.status,
    hooks,
    video: {
      status: video?.status,
      type: video?.headers.get("content-type"),
      brand: new TextDecoder().decode(bytes.slice(4, 8)),
    },
    unauthorized: { status: unauthorized.status, body: await unauthorized.json() },
    requests: mock.requests.map((request) => `${request.method} ${request.path} ${request.status}`),
    elapsedMs: performance.now() - started,
  };
}

(globalThis as { runGenVideoFlow?: typeof run }).runGenVideoFlow = run;
