/**
 * The server's image as an operator runs it: on SQLite in a volume with a read-only root, then
 * as an `api` and a `worker` container on a PostgreSQL database of the host. Each step is
 * checked from the host, as a customer's code or a probe would see it.
 */
import { freeLoopbackPort } from "@genvideo/server/testing";
import { type PostgresCluster, startPostgresCluster } from "@genvideo/server/testing/postgres";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { podman, podmanOk } from "./support/podman.js";
import { createAndAwait, type Status } from "./support/task.js";

const image = inject("image");
const run = `${process.pid}-${Date.now().toString(36)}`;
const containers: string[] = [];
const volumes: string[] = [];

afterAll(async () => {
  for (const id of containers) await podman("rm", "--force", "--time=0", id);
  for (const name of volumes) await podman("volume", "rm", "--force", name);
});

/** `podman run --detach` with these options; the container is removed after the file. */
async function startContainer(...options: string[]): Promise<string> {
  const id = await podmanOk("run", "--detach", ...options, image);
  containers.push(id);
  return id;
}

/** How long until the image's own HEALTHCHECK passes (podman runs it on asking, without systemd). */
async function untilHealthy(id: string, since: number): Promise<number> {
  while (performance.now() - since < 120_000) {
    if ((await podman("healthcheck", "run", id)).code === 0) return performance.now() - since;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${id} not healthy after 120 s:\n${(await podman("logs", id)).stderr}`);
}

/** The key and secret the first start shows once, on stderr (`podman logs`). */
async function shownOnce(id: string): Promise<{ apiKey: string; webhookSecret: string }> {
  const { stderr } = await podman("logs", id);
  const apiKey = /API key \(shown once, store it now\):\n(\S+)/.exec(stderr)?.[1];
  const webhookSecret = /Webhook signing secret \(shown once\):\n(\S+)/.exec(stderr)?.[1];
  if (!apiKey || !webhookSecret) throw new Error(`no key and secret in the first start's output:\n${stderr}`);
  return { apiKey, webhookSecret };
}

/** The README's curl flow, then the video from its URL. */
async function createAndWatch(baseUrl: string, apiKey: string): Promise<{ status: Status; video: Response }> {
  const status = await createAndAwait(baseUrl, apiKey, "a container ship at dawn");
  return { status, video: await fetch(status.video_url as string) };
}

async function expectMp4(video: Response): Promise<void> {
  expect(video.status).toBe(200);
  expect(video.headers.get("content-type")).toBe("video/mp4");
  const bytes = new Uint8Array(await video.arrayBuffer());
  expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe("ftyp");
}

/** The user id the server (PID 1 in the container) runs as, from the kernel's view of it. */
async function serverUid(id: string): Promise<number> {
  const status = await podmanOk("exec", id, "cat", "/proc/1/status");
  return Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
}

/** `podman stop` (SIGTERM, then SIGKILL after 10 s) and how the server ended. */
async function stop(id: string): Promise<{ stopCode: number | null; exitCode: number; logs: string }> {
  const { code } = await podman("stop", "--time=10", id);
  const exitCode = Number(await podmanOk("inspect", "--format", "{{.State.ExitCode}}", id));
  const logs = (await podman("logs", id)).stdout;
  return { stopCode: code, exitCode, logs };
}

describe("on SQLite in a volume, with a read-only root", () => {
  const volume = `genvideo-test-data-${run}`;
  let port: number;
  let first: string;
  let secrets: { apiKey: string; webhookSecret: string };
  let taskId: string;

  const options = () => [
    "--read-only",
    `--volume=${volume}:/data`,
    `--publish=127.0.0.1:${port}:8787`,
    "--env=GENVIDEO_TIME_SCALE=60",
    // The address clients reach it at, for the video URLs it hands out.
    `--env=GENVIDEO_PUBLIC_URL=http://127.0.0.1:${port}`,
  ];

  beforeAll(async () => {
    await podmanOk("volume", "create", volume);
    volumes.push(volume);
    port = await freeLoopbackPort();
    const since = performance.now();
    first = await startContainer(...options());
    const healthyAfter = await untilHealthy(first, since);
    console.log(
      `time to healthy (podman run to the HEALTHCHECK passing): ${(healthyAfter / 1000).toFixed(1)} s`,
    );
    secrets = await shownOnce(first);
  });

  it("runs the server as a user other than root", async () => {
    const uid = await serverUid(first);
    expect(uid).toBeGreaterThan(0);
    expect(await podmanOk("exec", first, "id", "-un")).toBe("genvideo");
  });

  it("creates a task and serves its MP4 to the host, at the public URL it was given", async () => {
    const { status, video } = await createAndWatch(`http://127.0.0.1:${port}`, secrets.apiKey);
    expect(new URL(status.video_url as string).origin).toBe(`http://127.0.0.1:${port}`);
    await expectMp4(video);
    taskId = status.task_id;
  });

  it("writes nowhere but the volume: the root file system is read-only", async () => {
    const outside = await podman("exec", first, "touch", "/opt/genvideo/written");
    expect(outside.code).not.toBe(0);
    expect(outside.stderr).toMatch(/Read-only file system/);
    expect(await podmanOk("exec", first, "ls", "/data")).toMatch(/genvideo\.db/);
  });

  it("stops on SIGTERM with exit code 0, and `podman stop` exits 0", async () => {
    const { stopCode, exitCode, logs } = await stop(first);
    expect(stopCode).toBe(0);
    expect(exitCode).toBe(0);
    expect(logs).toMatch(/"msg":"stopped"/);
  });

  it("keeps the key and the task in the volume for a new container", async () => {
    const since = performance.now();
    const second = await startContainer(...options());
    await untilHealthy(second, since);
    const { stderr } = await podman("logs", second);
    expect(stderr).not.toMatch(/first start/);
    const response = await fetch(`http://127.0.0.1:${port}/api/gen/status/${taskId}`, {
      headers: { authorization: `Bearer ${secrets.apiKey}` },
    });
    expect(response.status).toBe(200);
    const status = (await response.json()) as Status;
    expect(status).toMatchObject({ status: "completed", task_id: taskId });
    await expectMp4(await fetch(status.video_url as string));
    expect((await stop(second)).exitCode).toBe(0);
  });
});

describe("on PostgreSQL, as an api container and a worker container", () => {
  const volume = `genvideo-test-videos-${run}`;
  const apiKey = "gen_sk_container_test_bootstrap_key";
  let cluster: PostgresCluster;
  let api: string;
  let worker: string;
  let port: number;

  beforeAll(async () => {
    cluster = await startPostgresCluster();
    const database = await cluster.createDatabase();
    await podmanOk("volume", "create", volume);
    volumes.push(volume);
    port = await freeLoopbackPort();
    const shared = [
      // The host's network: the throwaway cluster listens on the host's loopback only.
      "--network=host",
      "--read-only",
      // Workers write videos that the api serves: one volume, one machine (S3 spans machines).
      `--volume=${volume}:/data`,
      `--env=GENVIDEO_DATABASE_URL=${database}`,
      `--env=GENVIDEO_BOOTSTRAP_API_KEY=${apiKey}`,
      "--env=GENVIDEO_TIME_SCALE=60",
      `--env=GENVIDEO_PUBLIC_URL=http://127.0.0.1:${port}`,
    ];
    const since = performance.now();
    api = await startContainer(
      ...shared,
      "--env=GENVIDEO_ROLE=api",
      "--env=HOST=127.0.0.1",
      `--env=PORT=${port}`,
    );
    const workerPort = await freeLoopbackPort();
    worker = await startContainer(
      ...shared,
      "--env=GENVIDEO_ROLE=worker",
      "--env=HOST=127.0.0.1",
      `--env=PORT=${workerPort}`,
    );
    await Promise.all([untilHealthy(api, since), untilHealthy(worker, since)]);
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it("creates a task on the api, renders it on the worker, and serves the MP4", async () => {
    const { video } = await createAndWatch(`http://127.0.0.1:${port}`, apiKey);
    await expectMp4(video);
    const { stdout } = await podman("logs", worker);
    expect(stdout).toMatch(/"role":"worker"/);
  });

  it("stops both with exit code 0", async () => {
    const [apiStop, workerStop] = await Promise.all([stop(api), stop(worker)]);
    expect(apiStop).toMatchObject({ stopCode: 0, exitCode: 0 });
    expect(workerStop).toMatchObject({ stopCode: 0, exitCode: 0 });
  });
});
