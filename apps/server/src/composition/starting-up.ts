/**
 * The answer to every request that arrives after the server listens and
 * before its startup sweep has ended (see docs/api.md, "Errors"): the
 * contract's 503 body, with a request id and `Retry-After`, before
 * authentication. It changes nothing, so any client may simply send again.
 */
import { NOSNIFF_HEADERS, serviceUnavailableBody } from "@genvideo/engine";
import { requestIdFor } from "@genvideo/engine/rules";
import { API_PATHS, RATE_LIMIT_HEADERS } from "@genvideo/schema";

/** Seconds to wait: the sweep takes well under a second unless many tasks expired while the server was down. */
export const STARTING_UP_RETRY_AFTER_SECONDS = 1;

export function startingUpResponse(request: Request): Response {
  const requestId = requestIdFor(request.headers.get("x-request-id"));
  const create = request.method === "POST" && new URL(request.url).pathname === API_PATHS.createTask;
  return Response.json(serviceUnavailableBody(requestId, STARTING_UP_RETRY_AFTER_SECONDS, { create }), {
    status: 503,
    headers: {
      [RATE_LIMIT_HEADERS.retryAfter]: String(STARTING_UP_RETRY_AFTER_SECONDS),
      "X-Request-Id": requestId,
      "Cache-Control": "no-store",
      ...NOSNIFF_HEADERS,
    },
  });
}
