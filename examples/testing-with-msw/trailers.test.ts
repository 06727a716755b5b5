/**
 * A test suite on @genvideo/msw: the mock runs the service's real engine on a virtual clock,
 * so each outcome (completed, refused, timed out, out of credits) takes milliseconds.
 */
import { setupGenVideoMock } from "@genvideo/msw/vitest";
import { GenVideo } from "@genvideo/sdk";
import { describe, expect, it, vi } from "vitest";
import { makeTrailer } from "./trailers.ts";

const mock = setupGenVideoMock({ credits: 3 });
const client = new GenVideo({ baseUrl: mock.baseUrl, apiKey: mock.apiKey });

/** Runs `makeTrailer`, moving the mock's clock once the task exists, as a real render's minutes would pass. */
async function makeTrailerWithin(duration: string, prompt = "a lighthouse in a storm") {
  const result = makeTrailer(client, prompt, { pollInterval: 5 });
  await vi.waitUntil(async () => (await mock.tasks.list()).length > 0);
  await mock.clock.advance(duration);
  return result;
}

describe("makeTrailer", () => {
  it("returns the video's URL once the task completes", async () => {
    const result = await makeTrailerWithin("1m");

    expect(result).toMatchObject({ ok: true, videoUrl: expect.stringContaining("/videos/") });
    const video = await fetch(result.ok ? result.videoUrl : "");
    expect(video.headers.get("content-type")).toBe("video/mp4");
  });

  it("says refused when the content is unsafe, and keeps the credit spent", async () => {
    mock.tasks.next({ fail: "UNSAFE_CONTENT" });

    expect(await makeTrailerWithin("1m")).toMatchObject({ ok: false, reason: "refused" });
    const [task] = await mock.tasks.list();
    expect(task).toMatchObject({ failureCode: "UNSAFE_CONTENT", refunded: false });
  });

  it("says try again when the task times out, and the credit comes back", async () => {
    mock.tasks.next({ fail: "TIMEOUT" });

    expect(await makeTrailerWithin("10m")).toMatchObject({ ok: false, reason: "try-again" });
    const [task] = await mock.tasks.list();
    expect(task).toMatchObject({ failureCode: "TIMEOUT", refunded: true });
  });

  it("says out of credits when the account has none left", async () => {
    // gen-3-fast costs 1 credit: the account's 3 are spent by three trailers.
    for (let index = 0; index < 3; index++) await client.createTask({ prompt: `trailer ${index}` });

    expect(await makeTrailer(client, "one too many")).toEqual({ ok: false, reason: "out-of-credits" });
  });

  it("sends one create per trailer, with an idempotency key so a retry never charges twice", async () => {
    await makeTrailerWithin("1m");

    const creates = mock.requests.filter((request) => request.method === "POST");
    expect(creates).toHaveLength(1);
    expect(creates[0]?.headers["idempotency-key"]).toBeTruthy();
  });
});
