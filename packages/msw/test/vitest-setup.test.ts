/** The `/vitest` subpath: one call wires the msw server and resets between tests. */
import { GenVideo, verifyWebhook } from "@genvideo/sdk";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { setupGenVideoMock } from "../src/vitest.js";

const hooks: string[] = [];
const mock = setupGenVideoMock({
  handlers: [
    http.post("https://shop.test/hooks/genvideo", async ({ request }) => {
      hooks.push((await verifyWebhook(request, mock.webhookSecret)).message);
      return new HttpResponse(null, { status: 204 });
    }),
  ],
});
const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey });

describe("setupGenVideoMock", () => {
  it("serves the API and delivers webhooks to the suite's own handlers", async () => {
    const task = await client.createTask({
      prompt: "hello",
      callback_url: "https://shop.test/hooks/genvideo",
    });
    await mock.clock.advance("1m");
    expect((await client.getStatus(task.task_id)).status).toBe("completed");
    expect(hooks).toEqual(["Video generated successfully"]);
    mock.server.use(
      http.get(`${mock.baseUrl}/api/gen/status/:id`, () =>
        HttpResponse.json({ nope: true }, { status: 418 }),
      ),
    );
    expect((await fetch(`${mock.baseUrl}/api/gen/status/${task.task_id}`)).status).toBe(418);
  });

  it("starts each test afresh: no tasks, no records, no overrides", async () => {
    expect(await mock.tasks.list()).toEqual([]);
    expect(mock.requests).toEqual([]);
    expect(mock.webhooks.deliveries).toEqual([]);
    const task = await client.createTask({ prompt: "again" });
    expect((await client.getStatus(task.task_id)).status).toBe("processing");
  });
});
