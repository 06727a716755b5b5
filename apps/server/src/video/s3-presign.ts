/**
 * SigV4 presigned GET URLs (query-string authentication, as AWS S3 and every
 * S3-compatible service check them), computed with node:crypto. A status read
 * of a completed task may need a fresh URL, so this is on the API's hot path:
 * synchronous HMACs cost a fraction of Web Crypto's asynchronous calls (an
 * import and three operations per signature), which is why the requests go
 * through aws4fetch and only the presigning is done here. The tests check
 * that both sign alike.
 */
import { createHash, createHmac } from "node:crypto";

export interface S3SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | undefined;
}

export class S3Presigner {
  readonly #credentials: S3SigningCredentials;
  readonly #region: string;
  /** The signing key of one day (`yyyymmdd`): derived once a day, not once a URL. */
  #signingKey: { date: string; key: Buffer } | undefined;

  constructor(credentials: S3SigningCredentials, region: string) {
    this.#credentials = credentials;
    this.#region = region;
  }

  /**
   * `objectUrl` (already percent-encoded, no query) signed for GET, dated
   * `signedAt` (ms), valid `expiresSeconds` from then.
   */
  presign(objectUrl: string, signedAt: number, expiresSeconds: number): string {
    const url = new URL(objectUrl);
    const amzDate = new Date(signedAt).toISOString().replace(/[:-]|\.\d{3}/g, "");
    const date = amzDate.slice(0, 8);
    const scope = `${date}/${this.#region}/s3/aws4_request`;
    // Already in the canonical (sorted) order, so the same string is signed and sent.
    const parameters: [string, string][] = [
      ["X-Amz-Algorithm", "AWS4-HMAC-SHA256"],
      ["X-Amz-Credential", `${this.#credentials.accessKeyId}/${scope}`],
      ["X-Amz-Date", amzDate],
      ["X-Amz-Expires", String(expiresSeconds)],
      ...(this.#credentials.sessionToken
        ? [["X-Amz-Security-Token", this.#credentials.sessionToken] as [string, string]]
        : []),
      ["X-Amz-SignedHeaders", "host"],
    ];
    const query = parameters.map(([name, value]) => `${name}=${encodeRfc3986(value)}`).join("&");
    const canonicalRequest = `GET\n${url.pathname}\n${query}\nhost:${url.host}\n\nhost\nUNSIGNED-PAYLOAD`;
    const stringToSign = `AWS4-HMAC-SHA256\n${amzDate}\n${scope}\n${createHash("sha256").update(canonicalRequest).digest("hex")}`;
    const signature = createHmac("sha256", this.#keyFor(date)).update(stringToSign).digest("hex");
    return `${url.origin}${url.pathname}?${query}&X-Amz-Signature=${signature}`;
  }

  #keyFor(date: string): Buffer {
    if (this.#signingKey?.date !== date) {
      const key = [date, this.#region, "s3", "aws4_request"].reduce<Buffer>(
        (parent, part) => createHmac("sha256", parent).update(part).digest(),
        Buffer.from(`AWS4${this.#credentials.secretAccessKey}`),
      );
      this.#signingKey = { date, key };
    }
    return this.#signingKey.key;
  }
}

/** Percent-encoding as SigV4 wants it: everything but `A-Z a-z 0-9 - _ . ~`. */
export function encodeRfc3986(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
