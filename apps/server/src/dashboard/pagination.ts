/**
 * How every dashboard list pages: newest first, a page of `PAGE_SIZE` rows,
 * and the next page starts strictly after the last row shown, by
 * `(created_at, id)` (the store's keyset order). The position travels in the
 * query string as `<created_at>_<id>`; `0_` is the position before every row,
 * from which a live list of an account with nothing yet starts watching.
 */
import type { Cursor } from "../store/dashboard-queries.js";

export type { Cursor };

export const PAGE_SIZE = 50;

/** Before every row: a live list that shows nothing yet watches from here. */
export const ORIGIN: Cursor = { createdAt: 0, id: "" };

export function encodeCursor(cursor: Cursor): string {
  return `${cursor.createdAt}_${cursor.id}`;
}

export function decodeCursor(text: string | undefined): Cursor | undefined {
  if (!text) return undefined;
  // Ids hold `_` too (webhook events are `msg_<hex>`): the first `_` ends the time.
  const match = /^(\d{1,16})_([0-9A-Za-z_-]{0,64})$/.exec(text);
  return match ? { createdAt: Number(match[1]), id: match[2]! } : undefined;
}

/**
 * The link to the page after `rows`, or undefined when `rows` is not a full
 * page of `pageSize` (nothing older). `href` makes the link from the encoded cursor.
 */
export function nextPageHref(
  rows: readonly Cursor[],
  href: (after: string) => string,
  pageSize: number = PAGE_SIZE,
): string | undefined {
  const last = rows.at(-1);
  return rows.length >= pageSize && last ? href(encodeCursor(last)) : undefined;
}
