import { AwsV4Signer } from "aws4fetch";
import { describe, expect, it } from "vitest";
import { encodeRfc3986, S3Presigner } from "./s3-presign.js";

const SIGNED_AT = Date.parse("2026-11-23T23:00:00Z");

/** The same URL signed by aws4fetch, the client the server's requests go through. */
async function referenceUrl(objectUrl: string, credentials: ConstructorParameters<typeof S3Presigner>[0]) {
  const url = new URL(objectUrl);
  url.searchParams.set("X-Amz-Expires", "3600");
  const signer = new AwsV4Signer({
    ...credentials,
    sessionToken: credentials.sessionToken,
    url: url.href,
    method: "GET",
    service: "s3",
    region: "eu-west-3",
    datetime: "20261123T230000Z",
    signQuery: true,
  });
  return (await signer.sign()).url;
}

function parameters(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams);
}

describe("S3Presigner", () => {
  it.each([
    ["a path-style key", "http://127.0.0.1:9000/videos/renders/3f0e8c4a-1b2d-4c5e-9f60-7a8b9c0d1e2f.mp4", {}],
    [
      "a virtual-hosted key under a prefix that needs encoding",
      `https://bucket.s3.eu-west-3.amazonaws.com/${["my videos", "(2026)!", "x.mp4"].map(encodeRfc3986).join("/")}`,
      {},
    ],
    [
      "temporary credentials",
      "https://s3.eu-west-3.amazonaws.com/b.with.dots/x.mp4",
      { sessionToken: "token/+=" },
    ],
  ])("signs %s exactly as aws4fetch does", async (_name, objectUrl, extra) => {
    const credentials = { accessKeyId: "AKIAEXAMPLE", secretAccessKey: "secret/key+", ...extra };
    const ours = new URL(new S3Presigner(credentials, "eu-west-3").presign(objectUrl, SIGNED_AT, 3600));
    const theirs = await referenceUrl(objectUrl, credentials);
    expect(ours.origin + ours.pathname).toBe(theirs.origin + theirs.pathname);
    expect(parameters(ours)).toEqual(parameters(theirs));
  });

  it("derives a new signing key on a new day", () => {
    const presigner = new S3Presigner({ accessKeyId: "A", secretAccessKey: "S" }, "us-east-1");
    const url = "http://127.0.0.1:9000/b/x.mp4";
    const today = new URL(presigner.presign(url, SIGNED_AT, 60));
    const tomorrow = new URL(presigner.presign(url, SIGNED_AT + 86_400_000, 60));
    expect(today.searchParams.get("X-Amz-Credential")).toBe("A/20261123/us-east-1/s3/aws4_request");
    expect(tomorrow.searchParams.get("X-Amz-Credential")).toBe("A/20261124/us-east-1/s3/aws4_request");
    expect(
      new S3Presigner({ accessKeyId: "A", secretAccessKey: "S" }, "us-east-1").presign(
        url,
        SIGNED_AT + 86_400_000,
        60,
      ),
    ).toBe(tomorrow.href);
  });
});
