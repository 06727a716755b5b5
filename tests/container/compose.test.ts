/**
 * deploy/compose.yaml brought up with podman-compose as an operator brings it up: the api and the
 * worker of the server's image, PostgreSQL, MinIO and the job that makes its bucket; then a task
 * created through the api, rendered by the worker, its MP4 fetched from the object store; then
 * everything torn down.
 *
 * The PostgreSQL and MinIO images cannot be pulled here. An override file swaps their image names
 * for stand-ins (stand-ins/: Debian's PostgreSQL 15 behind the official image's first-start
 * settings; s3rver behind MinIO's `minio server` and `mc`), names the server's image the global
 * setup built from the same Containerfile and context, and runs service time 60 times faster so
 * a task renders in about a second. Every other line is the operators' file.
 *
 * podman-compose 1.0.3 (Debian 12's) does not wait on `depends_on` conditions, so the test starts
 * the services in the order those conditions give: PostgreSQL and MinIO healthy, the bucket job
 * exited 0, then the api and the worker.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freeLoopbackPort } from "@genvideo/server/testing";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { stringify } from "yaml";
import { type CommandResult, run } from "../ecosystem/support/commands.js";
import { REPO_ROOT } from "../ecosystem/support/packages.js";
import { podman, podmanOk } from "./support/podman.js";
import { ensureStandInServices } from "./support/stand-in-services.js";
import { createAndAwait } from "./support/task.js";

const project = `genvideo-compose-${process.pid}`;
const scratch = mkdtempSync(join(tmpdir(), "genvideo-compose-"));
const override = join(scratch, "compose.stand-ins.yaml");
let ports: { API_PORT: string; MINIO_PORT: string };

function compose(...args: string[]): Promise<CommandResult> {
  return run(
    "podman-compose",
    ["--project-name", project, "--file", "deploy/compose.yaml", "--file", override, ...args],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, CONTAINERS_CONF: join(import.meta.dirname, "containers.conf"), ...ports },
    },
  );
}

async function composeOk(...args: string[]): Promise<string> {
  const result = await compose(...args);
  if (result.code !== 0)
    throw new Error(`podman-compose ${args.join(" ")}: ${result.code}\n${result.stderr}`);
  return result.stdout;
}

/** The container podman-compose names for a service. */
const container = (service: string) => `${project}_${service}_1`;

/** The project's containers and volumes that podman still has (compose labels them all). */
async function leftOver(): Promise<{ containers: string; volumes: string }> {
  const filter = `--filter=label=io.podman.compose.project=${project}`;
  return {
    containers: await podmanOk("ps", "--all", "--quiet", filter),
    volumes: await podmanOk("volume", "ls", "--quiet", filter),
  };
}

/** Polls the service's HEALTHCHECK (compose's, else the image's); podman runs it on asking here. */
async function untilHealthy(service: string): Promise<void> {
  const deadline = performance.now() + 120_000;
  while (performance.now() < deadline) {
    if ((await podman("healthcheck", "run", container(service))).code === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const { stdout, stderr } = await podman("logs", container(service));
  throw new Error(`${service} not healthy after 120 s:\n${stdout}\n${stderr}`);
}

/** The anonymous volumes of a service's container (the image's /data), which `down` leaves. */
async function anonymousVolumes(service: string): Promise<string[]> {
  const names = await podmanOk(
    "inspect",
    "--format",
    "{{range .Mounts}}{{.Name}} {{end}}",
    container(service),
  );
  return names.split(" ").filter(Boolean);
}

/** GET a URL through a published port, with the URL's own host in the Host header (it is signed). */
function getThrough(url: string, port: number): Promise<{ status: number; type: string; body: Buffer }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    get(
      { host: "127.0.0.1", port, path: `${target.pathname}${target.search}`, headers: { host: target.host } },
      (response) => {
        const chunks: Buffer[] = [];
        response.on("data", (chunk: Buffer) => chunks.push(chunk));
        response.on("end", () =>
          resolve({
            status: response.statusCode ?? 0,
            type: String(response.headers["content-type"]),
            body: Buffer.concat(chunks),
          }),
        );
        response.on("error", reject);
      },
    ).on("error", reject);
  });
}

/** The environment a service's container runs with: the image's, then the compose file's. */
async function environmentOf(service: string): Promise<Record<string, string>> {
  const variables = JSON.parse(
    await podmanOk("inspect", "--format", "{{json .Config.Env}}", container(service)),
  );
  return Object.fromEntries((variables as string[]).map((line) => line.split(/=(.*)/s).slice(0, 2)));
}

let dataVolumes: string[] = [];
let tornDown = false;

beforeAll(async () => {
  const standIns = await ensureStandInServices({ debian: inject("debianImage"), node: inject("nodeImage") });
  ports = { API_PORT: String(await freeLoopbackPort()), MINIO_PORT: String(await freeLoopbackPort()) };
  const server = { image: inject("image"), environment: { GENVIDEO_TIME_SCALE: "60" } };
  writeFileSync(
    override,
    stringify({
      services: {
        api: server,
        worker: server,
        postgres: { image: standIns.postgres },
        minio: { image: standIns.minio },
        bucket: { image: standIns.minio },
      },
    }),
  );
  const started = performance.now();
  await composeOk("up", "--detach", "--no-build", "postgres", "minio");
  await Promise.all([untilHealthy("postgres"), untilHealthy("minio")]);
  await composeOk("up", "--detach", "--no-build", "--no-deps", "bucket");
  expect(
    await podmanOk("wait", container("bucket")),
    (await podman("logs", container("bucket"))).stderr,
  ).toBe("0");
  await composeOk("up", "--detach", "--no-build", "--no-deps", "api", "worker");
  await Promise.all([untilHealthy("api"), untilHealthy("worker")]);
  dataVolumes = [...(await anonymousVolumes("api")), ...(await anonymousVolumes("worker"))];
  console.log(`compose stack up and healthy in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}, 600_000);

afterAll(async () => {
  if (!tornDown) await compose("down", "--volumes");
  for (const id of (await leftOver()).containers.split("\n").filter(Boolean)) {
    await podman("rm", "--force", "--volumes", id);
  }
  for (const volume of [...(await leftOver()).volumes.split("\n"), ...dataVolumes].filter(Boolean)) {
    await podman("volume", "rm", "--force", volume);
  }
  await podman("network", "rm", "--force", `${project}_default`);
  rmSync(scratch, { recursive: true, force: true });
});

describe("deploy/compose.yaml", () => {
  it("runs the api and the worker on the PostgreSQL and the bucket it starts", async () => {
    const [api, worker] = await Promise.all([environmentOf("api"), environmentOf("worker")]);
    expect(api.GENVIDEO_ROLE).toBe("api");
    expect(worker.GENVIDEO_ROLE).toBe("worker");
    expect(api.GENVIDEO_DATABASE_URL).toMatch(/@postgres:5432\//);
    expect(worker.GENVIDEO_DATABASE_URL).toBe(api.GENVIDEO_DATABASE_URL);
    const [apiLogs, workerLogs] = await Promise.all([
      podman("logs", container("api")),
      podman("logs", container("worker")),
    ]);
    expect(apiLogs.stdout).toMatch(/"role":"api"/);
    expect(workerLogs.stdout).toMatch(/"role":"worker"/);
    // Read-only roots, as the file asks.
    const write = await podman("exec", container("api"), "touch", "/opt/genvideo/written");
    expect(write.stderr).toMatch(/Read-only file system/);
  });

  it("takes a task on the api, renders it on the worker, and serves the MP4 from the bucket", async () => {
    const environment = await environmentOf("api");
    const baseUrl = environment.GENVIDEO_PUBLIC_URL as string;
    expect(baseUrl).toBe(`http://127.0.0.1:${ports.API_PORT}`);
    const status = await createAndAwait(
      baseUrl,
      environment.GENVIDEO_BOOTSTRAP_API_KEY as string,
      "a harbour crane lifting a container",
    );

    // A URL presigned for the store's name on the compose network, as the file says clients
    // must reach it (a laptop's hosts file maps `minio` to 127.0.0.1; here MINIO_PORT is free).
    const videoUrl = new URL(status.video_url as string);
    expect(videoUrl.origin).toBe(environment.GENVIDEO_S3_ENDPOINT);
    expect(videoUrl.pathname).toMatch(/^\/genvideo\/videos\//);
    const video = await getThrough(videoUrl.href, Number(ports.MINIO_PORT));
    expect(video.status).toBe(200);
    expect(video.type).toBe("video/mp4");
    expect(video.body.subarray(4, 8).toString("latin1")).toBe("ftyp");
    // The signature is checked: the same URL with another expiry is refused.
    videoUrl.searchParams.set("X-Amz-Expires", "604800");
    expect((await getThrough(videoUrl.href, Number(ports.MINIO_PORT))).status).toBe(403);
  });

  it("tears down with `down --volumes`: containers and named volumes gone", async () => {
    await composeOk("down", "--volumes");
    tornDown = true;
    expect(await leftOver()).toEqual({ containers: "", volumes: "" });
  });
});
