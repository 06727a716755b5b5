import {
  serveVideoDownload,
  tinyMp4Bytes,
  type VideoStorage,
  VideoUrlSigner,
  videoFromBytes,
} from "@genvideo/engine";

const VIDEO_PATH = /^\/videos\/([^/]*)$/;

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

  signedUrl(_videoKey: string, taskId: string, now: number): Promise<string> {
    return this.#signer.signedUrl(taskId, now);
  }

  /**
   * Serves `GET`/`HEAD /videos/...` at service time `now`. `exists` says
   * whether the task has a video (a completed task of this mock).
   */
  serve(
    request: Request,
    path: string,
    now: number,
    exists: (taskId: string) => Promise<boolean>,
  ): Promise<Response> {
    return serveVideoDownload(request, VIDEO_PATH.exec(path)?.[1] ?? "", {
      check: (taskId, expires, signature) => this.#signer.check(taskId, expires, signature, now),
      open: async (taskId) =>
        (await exists(taskId)) ? videoFromBytes(tinyMp4Bytes(), '"genvideo-mock-video"') : undefined,
      now,
    });
  }
}
