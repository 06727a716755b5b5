/**
 * Checks an image sent as a data URI against the contract: declared type, base64, decoded size,
 * bytes matching the declared type, pixel size. Kept apart from the response schemas so that a
 * client importing only those never bundles image parsing.
 */
import { decodeBase64, decodedBase64Length, isBase64 } from "./base64.js";
import { type ImageFormat, readImageSize, sniffImageFormat } from "./image-header.js";
import { IMAGE_MAX_BYTES, IMAGE_MAX_SIDE_PX, IMAGE_MEDIA_TYPES, type ImageMediaType } from "./limits.js";

/** A data URI that passed every check. */
export interface InspectedImage {
  ok: true;
  mediaType: ImageMediaType;
  /** Decoded size in bytes. */
  byteLength: number;
  width: number;
  height: number;
}

/** Why a data URI was refused, as a sentence for the person who sent it. */
export interface RejectedImage {
  ok: false;
  message: string;
}

const FORMAT_OF_MEDIA_TYPE: Record<ImageMediaType, ImageFormat> = {
  "image/jpeg": "jpeg",
  "image/png": "png",
  "image/webp": "webp",
};

const FORMAT_LABEL: Record<ImageFormat, string> = { jpeg: "JPEG", png: "PNG", webp: "WebP" };

const EXPECTED_FORM = "data:image/<jpeg|png|webp>;base64,<data>";

/** Where the comma ending a data URI's header must be by: far past `data:image/jpeg;base64,`. */
const MAX_HEADER_LENGTH = 256;

/**
 * Decodes and checks an image data URI (`data:image/(jpeg|png|webp);base64,...`).
 *
 * @example
 * const image = inspectImageDataUri(request.start_frame);
 * if (image.ok) console.log(image.mediaType, image.width, image.height);
 * else console.log(image.message); // "The image is 5000×300 px; each side may be at most 4096 px."
 */
export function inspectImageDataUri(value: string): InspectedImage | RejectedImage {
  // Read with string searches within a capped length, not a pattern: a pattern's repeated group
  // over millions of ";" overflowed the stack (a 500) on a field of the documented size.
  const comma = value.startsWith("data:") ? value.slice(0, MAX_HEADER_LENGTH).indexOf(",") : -1;
  if (comma === -1) return reject(`Expected an image data URI of the form ${EXPECTED_FORM}.`);
  const header = value.slice("data:".length, comma);
  const parameters = header.indexOf(";");
  const declared = parameters === -1 ? header : header.slice(0, parameters);
  const mediaType = declared as ImageMediaType;
  if (!IMAGE_MEDIA_TYPES.includes(mediaType)) {
    const named = declared === "" ? "no media type" : `"${declared}"`;
    return reject(`The data URI declares ${named}; use image/jpeg, image/png or image/webp.`);
  }
  if (header.slice(declared.length) !== ";base64")
    return reject(`The image data must be base64-encoded: ${EXPECTED_FORM}.`);

  const data = value.slice(comma + 1);
  if (data.length === 0) return reject("The image data is empty.");
  if (!isBase64(data)) return reject("The image data is not valid base64 (standard alphabet, no spaces).");
  const byteLength = decodedBase64Length(data);
  if (byteLength > IMAGE_MAX_BYTES) {
    return reject(
      `The image is ${mebibytes(byteLength)} MiB; at most ${mebibytes(IMAGE_MAX_BYTES)} MiB is allowed.`,
    );
  }

  const bytes = decodeHeader(data);
  const declaredFormat = FORMAT_OF_MEDIA_TYPE[mediaType];
  const actualFormat = sniffImageFormat(bytes);
  if (actualFormat === undefined) {
    return reject(
      `The data URI declares ${mediaType} but the bytes are not a ${FORMAT_LABEL[declaredFormat]} image.`,
    );
  }
  if (actualFormat !== declaredFormat) {
    return reject(
      `The data URI declares ${mediaType} but the bytes are a ${FORMAT_LABEL[actualFormat]} image.`,
    );
  }
  // A JPEG's frame header may sit behind large metadata segments: read on into the whole image.
  const size =
    readImageSize(bytes, actualFormat) ??
    (bytes.length < byteLength ? readImageSize(decodeBase64(data), actualFormat) : undefined);
  if (!size)
    return reject(
      `The width and height of the image cannot be read: its ${FORMAT_LABEL[actualFormat]} header is damaged.`,
    );
  if (size.width > IMAGE_MAX_SIDE_PX || size.height > IMAGE_MAX_SIDE_PX) {
    return reject(
      `The image is ${size.width}×${size.height} px; each side may be at most ${IMAGE_MAX_SIDE_PX} px.`,
    );
  }
  return { ok: true, mediaType, byteLength, width: size.width, height: size.height };
}

/**
 * The decoded bytes of an image data URI that {@link inspectImageDataUri} accepted.
 *
 * @example
 * const bytes = decodeImageDataUri(request.start_frame); // Uint8Array of the JPEG, PNG or WebP file
 */
export function decodeImageDataUri(value: string): Uint8Array {
  return decodeBase64(value.slice(value.indexOf(",") + 1));
}

// Validation runs on every create request with up to four 10 MiB images: decoding only the first
// 64 KiB (every header that matters fits, but for rare JPEGs) keeps it cheap.
const HEADER_BASE64_LENGTH = Math.ceil((64 * 1024) / 3) * 4;

function decodeHeader(data: string): Uint8Array {
  return decodeBase64(data.length > HEADER_BASE64_LENGTH ? data.slice(0, HEADER_BASE64_LENGTH) : data);
}

function reject(message: string): RejectedImage {
  return { ok: false, message };
}

function mebibytes(byteCount: number): string {
  return (Math.ceil((byteCount / (1024 * 1024)) * 100) / 100).toString();
}
