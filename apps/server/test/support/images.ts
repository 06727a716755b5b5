/** Real, decodable images for requests the synthetic renderer actually renders. */
import sharp from "sharp";

async function solid(format: "jpeg" | "png", red: number, green: number, blue: number): Promise<string> {
  const image = sharp({
    create: { width: 64, height: 36, channels: 3, background: { r: red, g: green, b: blue } },
  });
  const bytes = await (format === "jpeg" ? image.jpeg() : image.png()).toBuffer();
  return `data:image/${format};base64,${bytes.toString("base64")}`;
}

export async function testImages() {
  return {
    red: await solid("jpeg", 220, 40, 40),
    blue: await solid("jpeg", 40, 60, 220),
    green: await solid("png", 40, 200, 80),
  };
}
