/**
 * The signed download of a completed task's `video_url` (docs/api.md#video-download): no API key,
 * the signature checked first, Range, HEAD. Run on the `--task` task when it is completed, or on the
 * task `--create` made.
 */
import { type Check, type CheckContext, judged, skipped, type Verdict } from "./check.js";
import type { Exchange } from "./exchange.js";
import { errorBody, headerIs, RULES, statusIs } from "./rules.js";

interface VideoCheck extends Omit<Check, "run"> {
  run(context: CheckContext, videoUrl: string): Promise<Verdict>;
}

/** A check of a completed task's video: skipped when the run has none. */
function onVideo(check: VideoCheck): Check {
  return {
    ...check,
    async run(context) {
      const task = context.state.completedTask;
      if (task) return check.run(context, task.videoUrl);
      return skipped(
        context.taskId === undefined
          ? "no completed task: give one with --task, or make one with --create"
          : "the task given by --task is not completed (or its status was wrong)",
      );
    },
  };
}

/** A signature check on a URL signed the reference server's way; skipped on an object store's. */
async function refusedSignature(context: CheckContext, url: string | undefined): Promise<Verdict> {
  if (url === undefined)
    return skipped(
      "the video_url has no signature parameter: an object store's presigned URL, its errors are the store's",
    );
  const exchange = await context.send("GET", url, "none");
  return judged([exchange], errorBody(exchange, 403, "INVALID_SIGNATURE"));
}

/** The URL with its signature changed (or, for a URL signed another way, untouched: undefined). */
function tampered(videoUrl: string, change: (signature: string) => string | undefined): string | undefined {
  const url = new URL(videoUrl);
  const signature = url.searchParams.get("signature");
  if (signature === null) return undefined;
  const changed = change(signature);
  if (changed === undefined) url.searchParams.delete("signature");
  else url.searchParams.set("signature", changed);
  return url.href;
}

/** An MP4 starts with a box whose type, at bytes 4 to 8, is `ftyp`. */
function isMp4(exchange: Exchange): string[] {
  const ftyp = new TextDecoder().decode(exchange.bytes.subarray(4, 8));
  return ftyp === "ftyp" ? [] : ["the bytes are not the start of an MP4 (no ftyp box)"];
}

const RANGE_END = 15;

export const videoChecks: Check[] = [
  onVideo({
    id: "video-range",
    title: "The video_url without a key, a Range of 16 bytes: 206 video/mp4",
    rule: RULES.video,
    async run(context, videoUrl) {
      const exchange = await context.send("GET", videoUrl, "none", {
        headers: { range: `bytes=0-${RANGE_END}` },
      });
      const problems = [...statusIs(exchange, 206), ...headerIs(exchange, "content-type", "video/mp4")];
      const range = exchange.answer.headers["content-range"];
      if (!range || !new RegExp(`^bytes 0-${RANGE_END}/\\d+$`).test(range))
        problems.push(
          `Content-Range ${range === undefined ? "missing" : `"${range}"`}, expected "bytes 0-${RANGE_END}/<size>"`,
        );
      if (exchange.bytes.length !== RANGE_END + 1)
        problems.push(`${exchange.bytes.length} bytes, expected ${RANGE_END + 1}`);
      else problems.push(...isMp4(exchange));
      return judged([exchange], problems);
    },
  }),
  onVideo({
    id: "video-head",
    title: "HEAD on the video_url: 200, the headers of the download, no body",
    rule: RULES.video,
    async run(context, videoUrl) {
      const exchange = await context.send("HEAD", videoUrl, "none");
      const problems = [...statusIs(exchange, 200), ...headerIs(exchange, "content-type", "video/mp4")];
      const length = exchange.answer.headers["content-length"];
      if (!(Number(length) > 0))
        problems.push(`Content-Length ${length ?? "missing"}, expected the video's size`);
      if (exchange.bytes.length > 0) problems.push(`a body of ${exchange.bytes.length} bytes on HEAD`);
      return judged([exchange], problems);
    },
  }),
  onVideo({
    id: "video-signature-tampered",
    title: "The video_url with a changed signature: 403 INVALID_SIGNATURE",
    rule: RULES.video,
    run: (context, videoUrl) =>
      refusedSignature(
        context,
        tampered(videoUrl, (signature) => `${signature.slice(0, -1)}${signature.endsWith("0") ? "1" : "0"}`),
      ),
  }),
  onVideo({
    id: "video-signature-missing",
    title: "The video_url without its signature: 403 INVALID_SIGNATURE",
    rule: RULES.video,
    run: (context, videoUrl) =>
      refusedSignature(
        context,
        tampered(videoUrl, () => undefined),
      ),
  }),
];
