export type RangeRequest =
  /** No usable Range header: send the whole video (multi-range, malformed and overlong headers land here too). */
  { kind: "whole" } | { kind: "partial"; start: number; end: number } | { kind: "unsatisfiable" };

/**
 * The longest `Range` header read. One range of two 20-digit positions with
 * some spaces fits many times over; a longer header is ignored (the whole video
 * is sent) before any of it is parsed, so its cost does not grow with its size.
 */
const MAX_RANGE_HEADER_LENGTH = 256;

const DIGITS = /^[0-9]+$/;

/**
 * Parses a `Range` header (RFC 9110 §14) for a representation of `size`
 * bytes. One range only: players ask for one, and ignoring a multi-range
 * request (answering 200 with everything) is allowed and saves multipart bodies.
 *
 * Split at `=` and `-` with string searches rather than one pattern: a pattern of
 * neighbouring `\s*(\d*)\s*` groups backtracks in cubic time on a header of
 * spaces, and a client controls this header without any credential.
 */
export function parseRange(header: string | undefined, size: number): RangeRequest {
  if (!header || header.length > MAX_RANGE_HEADER_LENGTH) return { kind: "whole" };
  const equals = header.indexOf("=");
  if (equals < 0 || header.slice(0, equals).trim().toLowerCase() !== "bytes") return { kind: "whole" };
  const set = header.slice(equals + 1);
  const dash = set.indexOf("-");
  if (dash < 0) return { kind: "whole" };
  const first = set.slice(0, dash).trim();
  const last = set.slice(dash + 1).trim();
  if ((first !== "" && !DIGITS.test(first)) || (last !== "" && !DIGITS.test(last))) return { kind: "whole" };
  if (first === "" && last === "") return { kind: "whole" };
  if (first === "") {
    // Suffix range: the last N bytes.
    const length = Number(last);
    if (length === 0 || size === 0) return { kind: "unsatisfiable" };
    return { kind: "partial", start: Math.max(0, size - length), end: size - 1 };
  }
  const start = Number(first);
  const end = last === "" ? size - 1 : Math.min(Number(last), size - 1);
  if (last !== "" && Number(last) < start) return { kind: "whole" };
  if (start >= size) return { kind: "unsatisfiable" };
  return { kind: "partial", start, end };
}

/** `If-None-Match` holds the ETag (weak comparison, as RFC 9110 asks for GET). */
export function matchesNoneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  const bare = etag.replace(/^W\//, "");
  return header.split(",").some((candidate) => candidate.trim().replace(/^W\//, "") === bare);
}
