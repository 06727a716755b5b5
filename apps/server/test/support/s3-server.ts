/**
 * A local S3-compatible server for tests: s3rver (the maintained
 * @20minutes/s3rver fork) in the test process, on a loopback port the OS
 * picks, storing objects in a temporary directory. It checks SigV4 signatures
 * (header and presigned query), presigned expiry, and serves Range requests,
 * which is what the server's S3 video storage relies on. Nothing reaches the
 * internet.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { utimes } from "node:fs/promises";
import type { Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { useForFile } from "./use-server.js";

/** The one key pair s3rver accepts. */
export const S3_TEST_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" } as const;
export const S3_TEST_REGION = "us-east-1";

export interface LocalS3Server {
  /** `http://127.0.0.1:<port>`: the value of GENVIDEO_S3_ENDPOINT. */
  endpoint: string;
  bucket: string;
  /** The environment a server needs to store its videos under `s3://<bucket>/<prefix>`. */
  serverEnvironment(prefix?: string): Record<string, string>;
  /** Sets an object's Last-Modified (s3rver takes it from its file's mtime), as if uploaded then. */
  age(key: string, lastModified: Date): Promise<void>;
  close(): Promise<void>;
}

interface S3rverInstance {
  run(): Promise<AddressInfo>;
  close(): Promise<void>;
  httpServer?: Server;
}

type S3rverConstructor = new (options: Record<string, unknown>) => S3rverInstance;

export async function startLocalS3(bucket = "videos"): Promise<LocalS3Server> {
  const S3rver = createRequire(import.meta.url)("@20minutes/s3rver") as S3rverConstructor;
  const directory = mkdtempSync(join(tmpdir(), "genvideo-s3-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    // Buckets by path (`/<bucket>/<key>`), as GENVIDEO_S3_ENDPOINT addresses them.
    vhostBuckets: false,
    configureBuckets: [{ name: bucket }],
  });
  const address = await server.run();
  const endpoint = `http://127.0.0.1:${address.port}`;
  return {
    endpoint,
    bucket,
    age: (key, lastModified) =>
      utimes(join(directory, bucket, `${key}._S3rver_object`), lastModified, lastModified),
    serverEnvironment: (prefix = "") => ({
      GENVIDEO_VIDEO_STORAGE: `s3://${bucket}/${prefix}`,
      GENVIDEO_S3_ENDPOINT: endpoint,
      GENVIDEO_S3_REGION: S3_TEST_REGION,
      AWS_ACCESS_KEY_ID: S3_TEST_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: S3_TEST_CREDENTIALS.secretAccessKey,
    }),
    async close() {
      server.httpServer?.closeAllConnections();
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** A local S3 for the file's tests: started before them, closed after them. */
export function useLocalS3(): LocalS3Server {
  return useForFile({ name: "useLocalS3()'s bucket", start: () => startLocalS3(), stop: (s3) => s3.close() });
}
