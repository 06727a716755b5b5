/**
 * deploy/compose.yaml as podman-compose reads it. Its PostgreSQL and MinIO images cannot be pulled
 * here, so this does not start the cluster: it checks the podman commands `up` would run (a dry
 * run) and that the server accepts the api's and the worker's settings. The image, api and worker
 * roles on PostgreSQL are run for real in container.test.ts; S3 storage in the server's own tests.
 */
import { loadConfig } from "@genvideo/server";
import { afterAll, describe, expect, it } from "vitest";
import { run } from "../ecosystem/support/commands.js";
import { REPO_ROOT } from "../ecosystem/support/packages.js";
import { podman } from "./support/podman.js";

const project = `genvideo-compose-check-${process.pid}`;

afterAll(async () => {
  // A dry run still creates the project's volumes and network.
  for (const volume of ["postgres-data", "minio-data"])
    await podman("volume", "rm", "--force", `${project}_${volume}`);
  await podman("network", "rm", "--force", `${project}_default`);
});

/** Each service's `podman create` line from `podman-compose --dry-run up`. */
async function plannedContainers(): Promise<Map<string, string>> {
  const result = await run(
    "podman-compose",
    ["--dry-run", "--project-name", project, "--file", "deploy/compose.yaml", "up"],
    {
      cwd: REPO_ROOT,
      env: { ...process.env, CONTAINERS_CONF: `${import.meta.dirname}/containers.conf` },
    },
  );
  expect(result.code, result.stderr).toBe(0);
  const creates = new Map<string, string>();
  for (const line of result.stdout.split("\n")) {
    const service = /^podman create .*--label com\.docker\.compose\.service=(\S+)/.exec(line)?.[1];
    if (service) creates.set(service, line);
  }
  return creates;
}

/** The `-e NAME=VALUE` settings of one planned container. */
function environment(line: string): Record<string, string> {
  return Object.fromEntries([...line.matchAll(/ -e (\w+)=(\S*)/g)].map(([, name, value]) => [name, value]));
}

describe("deploy/compose.yaml", () => {
  it("plans an api and a worker of the image built from the Containerfile, PostgreSQL, MinIO and its bucket", async () => {
    const containers = await plannedContainers();
    expect([...containers.keys()].sort()).toEqual(["api", "bucket", "minio", "postgres", "worker"]);
    for (const role of ["api", "worker"]) {
      const line = containers.get(role) as string;
      expect(line).toMatch(/ genvideo-server$/);
      expect(line).toContain("--read-only");
      expect(environment(line).GENVIDEO_ROLE).toBe(role);
    }
    expect(containers.get("api")).toContain("-p 127.0.0.1:8787:8787");
  });

  it("gives both roles settings the server accepts, on the same database and bucket", async () => {
    const containers = await plannedContainers();
    const configs = ["api", "worker"].map((role) =>
      // The image's own environment, then the service's.
      loadConfig({
        HOST: "0.0.0.0",
        PORT: "8787",
        GENVIDEO_DATA_DIR: "/data",
        ...environment(containers.get(role) as string),
      }),
    );
    const [api, worker] = configs;
    expect(api?.role).toBe("api");
    expect(worker?.role).toBe("worker");
    expect(api?.database).toMatchObject({ kind: "postgres" });
    expect(api?.database).toEqual(worker?.database);
    expect(api?.videoStorage).toEqual(worker?.videoStorage);
    expect(api?.videoStorage).toMatchObject({ kind: "s3" });
  });
});
