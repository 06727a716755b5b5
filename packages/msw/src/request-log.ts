/** One request the code under test sent to the mocked API, as the mock saw it. */
export interface RecordedRequest {
  method: string;
  /** The full URL, query included. */
  url: string;
  /** The path under `baseUrl`, without the query: `/api/gen/status/<id>`. */
  path: string;
  /** Request headers, names in lower case (the Authorization header included, as sent). */
  headers: Record<string, string>;
  /** The body: parsed JSON when it is JSON, else the text; undefined without a body. */
  body: unknown;
  /** The HTTP status the mock answered with; 0 for a forced network error. */
  status: number;
  /** Service time when it arrived. */
  at: Date;
}

/** Parses what a request carried, for the log: JSON when it is JSON, else the text. */
export function readLoggedBody(bytes: ArrayBuffer | undefined): unknown {
  if (bytes === undefined || bytes.byteLength === 0) return undefined;
  const text = new TextDecoder().decode(bytes);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** Headers as a plain object (lower-case names), for assertions. */
export function headersObject(headers: Headers): Record<string, string> {
  const result: Record<string, string> = {};
  headers.forEach((value, name) => {
    result[name] = value;
  });
  return result;
}
