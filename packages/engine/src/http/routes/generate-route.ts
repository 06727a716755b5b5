import { validationMessage } from "@genvideo/schema";
import type { Context } from "hono";
import { withInsecureCallbacksHint } from "../../callback-url/callback-url-syntax.js";
import { releaseIdempotent, requestFingerprint, startIdempotent } from "../../idempotency/idempotency.js";
import { StoreUnavailableError } from "../../store/store-unavailable-error.js";
import { createTask, createTaskForKey } from "../../tasks/create-task.js";
import { ApiError } from "../api-error.js";
import { asInsufficientCredits, idempotencyKeyOf, idempotencyRefusal } from "../create-refusals.js";
import { validateCreateRequest } from "../create-request-validation.js";
import type { EngineEnv, HttpServices, RouteHandler } from "../engine-env.js";
import { nextEventLoopTurn } from "../event-loop-turn.js";
import { jsonResponse } from "../json-response.js";
import type { KeyCheck } from "../key-check.js";
import { readJsonBody } from "../read-json-body.js";

/**
 * `POST /api/gen/generate`. Checks run cheapest first: media type, size,
 * JSON, the Idempotency-Key's shape, fields; then the key's history (so an
 * invalid body gets its 400 even with a used key, and is never remembered),
 * the callback target (may resolve DNS), and credits in the creating transaction. A large body
 * (reference images) lets the event loop in between those passes, as while reading it.
 *
 * When the create's own statement checks the key (`keyCheck`, see `authenticated`), the caller
 * is not known yet while the body is read and validated: a refusal of the request is answered
 * only once the key has been looked up (a 401 first), and so is a callback URL checked (nothing
 * is resolved for a caller without a live key).
 */
export function generateRoute(services: HttpServices): RouteHandler {
  const { store, clock, config, observer } = services;
  const insertChargedTaskForKey = store.insertChargedTaskForKey?.bind(store);

  async function create(c: Context<EngineEnv>, keyCheck: KeyCheck | undefined): Promise<Response> {
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
    const context = () => ({
      now: clock.now(),
      randomUUID: services.randomUUID,
      traceParent: observer.traceParent?.() ?? null,
    });

    if (keyCheck && insertChargedTaskForKey && request.callback_url === undefined) {
      // The key, the charge, its ledger entry and the task in one statement.
      const created = await createTaskForKey(
        insertChargedTaskForKey,
        config,
        keyCheck.hash,
        request,
        context(),
      );
      if (created.apiKey === undefined) return keyCheck.refused();
      keyCheck.authenticated(created.apiKey);
      if ("refusal" in created) throw asInsufficientCredits(created.refusal);
      observer.taskCreated?.({ modelType: request.model_type });
      return jsonResponse(c, created.body, 200);
    }
    if (keyCheck) {
      const refused = await keyCheck.lookUp();
      if (refused) return refused;
    }
    const accountId = c.get("caller").accountId;

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
        context(),
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
  }

  return async (c) => {
    const keyCheck = c.get("keyCheck");
    if (!keyCheck) return create(c, undefined);
    try {
      return await create(c, keyCheck);
    } catch (error) {
      // Refused before its key was concluded (body, media type, size): a 401 comes first.
      if (ApiError.isInstance(error) && c.get("caller") === undefined) {
        const refused = await keyCheck.lookUp();
        if (refused) return refused;
      }
      throw error;
    }
  };
}
