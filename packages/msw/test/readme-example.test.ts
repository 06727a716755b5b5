/** The README's complete example, verbatim but for the import path: it must keep working. */
import { GenVideo, verifyWebhook } from "@genvideo/sdk";
import { HttpResponse, http } from "msw";
import { expect, it } from "vitest";
import { setupGenVideoMock } from "../src/vitest.js";

const received: string[] = [];
// Your own webhook receiver: it gets the mock's webhook, signed like the real one.
const receiver = http.post("https://shop.example.com/hooks/genvideo", async ({ request }) => {
  const payload = await verifyWebhook(request, mock.webhookSecret);
  received.push(`${payload.task_id} ${payload.message}`);
  return new HttpResponse(null, { status: 204 });
});

const mock = setupGenVideoMock({ baseUrl: "https://api.genvideo.test", handlers: [receiver] });
const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey });

it("renders a video and notifies the shop", async () => {
  const task = await client.createTask({
    prompt: "a paper boat on a rainy street",
    callback_url: "https://shop.example.com/hooks/genvideo",
  });
  const done = client.pollUntilDone(task, { interval: 10 });
  await mock.clock.advance("1m"); // the default generation time
  const video = await done;

  expect(video.status).toBe("completed");
  expect(received).toEqual([`${task.task_id} Video generated successfully`]);
  expect((await fetch(video.video_url)).headers.get("content-type")).toBe("video/mp4");
});

it("shows the error when the content is refused", async () => {
  mock.tasks.next({ fail: "UNSAFE_CONTENT" });
  const task = await client.createTask({ prompt: "anything" });
  await mock.clock.advance("1m");
  expect(await client.getStatus(task.task_id)).toMatchObject({ status: "failed", message: "UNSAFE_CONTENT" });
});
