import { validationMessage } from "@genvideo/schema";
import type { Handler } from "hono";
import { withInsecureCallbacksHint } from "../../callback-url/callback-url-syntax.js";
import { releaseIdempotent, requestFingerprint, startIdempotent } from "../../idempotency/idempotency.js";
import { StoreUnavailableError } from "../../store/store-unavailable-error.js";
import { createTask } from "../../tasks/create-task.js";
import { ApiError } from "../api-error.js";
import { asInsufficientCredits, idempotencyKeyOf, idempotencyRefusal } from "../create-refusals.js";
import { validateCreateRequest } from "../create-request-validation.js";
import type { EngineEnv, HttpServices } from "../engine-env.js";
import { nextEventLoopTurn } from "../event-loop-turn.js";
import { jsonResponse } from "../json-response.js";
import { readJsonBody } from "../read-json-body.js";

/**
 * `POST /api/gen/generate`. Checks run cheapest first: media type, size,
 * JSON, the Idempotency-Key's shape, fields; then the key's history (so an
 * invalid body gets its 400 even with a used key, and is never remembered),
 * the callback target (may resolve DNS), and credits in the creating transaction. A large body
 * (reference images) lets the event loop in between those passes, as while reading it.
 */
export function generateRoute(services: HttpServices): Handler<EngineEnv> {
  const { store, clock, config, observer } = services;
  return async (c) => {
    const accountId = c.get("caller").accountId;
    const { value: body, large } = await readJsonBody(c.req.raw, config.maxBodyBytes);
    const idempotencyKey = idempotencyKeyOf(c.req.header("idempotency-key"));
    if (large) await nextEventLoopTurn();
    const validation = validateCreateRequest(body);
    if (!validation.success) {
      throw new ApiError("INVALID_REQUEST", validationMessage(validation.issues, validation.total), {
        issues: validation.issues,
      });
    }
    const request = validation.data;
    if (large) await nextEventLoopTurn();

    if (idempotencyKey !== undefined) {
      const start = await startIdempotent(
        store,
        accountId,
        idempotencyKey,
        await requestFingerprint(body),
        clock.now(),
        config.idempotencyTtlMs,
      );
      if (start.kind === "replay") {
        return c.body(start.body, start.status as 200, {
          "Content-Type": "application/json",
          "Idempotent-Replayed": "true",
        });
      }
      if (start.kind !== "proceed") throw idempotencyRefusal(start);
    }

    try {
      if (request.callback_url !== undefined) {
        const check = await config.validateCallbackUrl(request.callback_url);
        if (!check.ok) {
          // Where insecure callbacks are on, a URL they accept never gets here: no hint then.
          const reason = withInsecureCallbacksHint(
            request.callback_url,
            check.reason,
            config.insecureCallbacksHint,
          );
          throw new ApiError("INVALID_CALLBACK_URL", reason, {
            issues: [{ path: "callback_url", message: reason }],
          });
        }
      }
      const created = await createTask(
        store,
        config,
        accountId,
        request,
        { now: clock.now(), randomUUID: services.randomUUID, traceParent: observer.traceParent?.() ?? null },
        idempotencyKey === undefined ? undefined : { key: idempotencyKey },
      );
      observer.taskCreated?.({ modelType: request.model_type });
      return jsonResponse(c, created, 200);
    } catch (error) {
      // Only a created task is remembered: after any refusal the key is free again. Not after
      // the database went out of reach: the create may have been made all the same (its answer
      // lost), and a retry must then find its response, not a free key.
      if (idempotencyKey !== undefined && !StoreUnavailableError.isInstance(error))
        await releaseIdempotent(store, accountId, idempotencyKey);
      throw asInsufficientCredits(error);
    }
  };
}
