/** What a download tool (a browser, curl) sees of a video URL: status, type, range and the bytes. */
export interface Download {
  status: number;
  type: string | null;
  contentRange: string | null;
  body: Buffer;
}

export async function download(url: string, range?: string): Promise<Download> {
  const response = await fetch(url, range ? { headers: { Range: range } } : {});
  return {
    status: response.status,
    type: response.headers.get("content-type"),
    contentRange: response.headers.get("content-range"),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** An MP4 starts with its `ftyp` box: bytes 4 to 8 name it. */
export function isMp4(bytes: Uint8Array): boolean {
  return Buffer.from(bytes.subarray(4, 8)).toString("latin1") === "ftyp";
}
