import {
  serveVideoDownload,
  tinyMp4Bytes,
  type VideoStorage,
  VideoUrlSigner,
  videoFromBytes,
} from "@genvideo/engine";

/**
 * Signed download URLs of the same shape and signature as the reference
 * server's, from the engine's `VideoUrlSigner` (Web Crypto, so it runs in
 * browsers), and the route that serves them with the engine's
 * `serveVideoDownload`: the same refusals (403 before anything else, 404,
 * 416), byte ranges and revalidation. Every video is the engine's tiny MP4.
 */
export class MockVideoStorage implements VideoStorage {
  readonly #signer: VideoUrlSigner;

  constructor(publicUrl: string, signingKey: Uint8Array<ArrayBuffer>) {
    this.#signer = new VideoUrlSigner({ publicUrl, signingKey });
  }

  async signedUrl(_videoKey: string, taskId: string, now: number): Promise<string> {
    return this.#signer.signedUrl(taskId, now);
  }

  /**
   * Serves every request under `/videos/` at service time `now`, as the reference server does
   * (405, 403 before anything that depends on the name, 404, ranges, revalidation), with the
   * headers the document lists. `madeAt` is when the task's video was made (service time), or
   * undefined when it has none (not a completed task of this mock).
   */
  async serve(
    request: Request,
    path: string,
    now: number,
    madeAt: (taskId: string) => Promise<number | undefined>,
  ): Promise<Response> {
    return serveVideoDownload(request, path.slice("/videos/".length), {
      check: (taskId, expires, signature) => this.#signer.check(taskId, expires, signature, now),
      open: async (taskId) => {
        const modifiedAt = await madeAt(taskId);
        if (modifiedAt === undefined) return undefined;
        return { ...videoFromBytes(tinyMp4Bytes(), '"genvideo-mock-video"'), modifiedAt };
      },
      now,
    });
  }
}
