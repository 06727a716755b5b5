/**
 * `X-Content-Type-Options: nosniff`, on every answer of the service and of its embedders' own
 * routes (docs/api.md#errors): a browser then reads a body as its declared type only, never a JSON
 * error, which may quote what a client sent, as HTML or script. A plain object, so that it can
 * join the plain header objects the Node server writes without building a `Headers`.
 */
export const NOSNIFF_HEADERS: Readonly<Record<string, string>> = { "X-Content-Type-Options": "nosniff" };

/** Adds {@link NOSNIFF_HEADERS} to `headers`. */
export function setNoSniff(headers: Headers): void {
  for (const [name, value] of Object.entries(NOSNIFF_HEADERS)) headers.set(name, value);
}
