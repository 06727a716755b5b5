import sharp from "sharp";
import type { FrameSize } from "./output-geometry.js";

const DATA_URI = /^data:image\/(jpeg|png|webp);base64,([A-Za-z0-9+/=\s]+)$/;

/** A request image that could not be decoded; the render fails as GENERATION_FAILED. */
export class InputImageError extends Error {
  override name = "InputImageError";
}

/**
 * Decodes an image data URI and fits it to the frame as raw RGB: EXIF
 * orientation applied, transparency flattened onto black, then `cover`
 * (scaled to fill the frame, centred, overflow cropped). Cover rather than
 * contain because the video should look like the user's frame, full-bleed,
 * as generation services do; the trade-off is cropped edges when the image's
 * aspect ratio differs from the video's.
 */
export async function fitImage(dataUri: string, size: FrameSize, label: string): Promise<Buffer> {
  const match = DATA_URI.exec(dataUri);
  if (!match?.[2]) throw new InputImageError(`${label} is not an image data URI`);
  const bytes = Buffer.from(match[2], "base64");
  try {
    const { data, info } = await sharp(bytes, { failOn: "error", limitInputPixels: 4096 * 4096 })
      .autoOrient()
      .resize(size.width, size.height, { fit: "cover", position: "centre" })
      .flatten({ background: "#000000" })
      .toColourspace("srgb")
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 3 || info.width !== size.width || info.height !== size.height) {
      throw new InputImageError(`${label} decoded to an unexpected shape`);
    }
    return data;
  } catch (error) {
    if (error instanceof InputImageError) throw error;
    throw new InputImageError(`${label} could not be decoded: ${(error as Error).message}`, { cause: error });
  }
}
