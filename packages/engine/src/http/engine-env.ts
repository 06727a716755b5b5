import type { Context } from "hono";
import type { Clock } from "../clock.js";
import type { EngineConfig } from "../config.js";
import type { RandomUUID } from "../ids.js";
import type { Caller } from "../keys/authenticate.js";
import type { KeyUsageRecorder } from "../keys/key-usage.js";
import type { EngineObserver } from "../observer.js";
import type { Store, TaskStatusRecord, VideoStorage } from "../ports.js";
import type { FailedAuthLimit } from "./failed-auth-limit.js";
import type { KeyCheck } from "./key-check.js";
import type { RateLimiter } from "./rate-limiter.js";

/** What the HTTP layer reads from the engine. */
export interface HttpServices {
  store: Store;
  clock: Clock;
  videoStorage: VideoStorage;
  config: EngineConfig;
  limiters: { create: RateLimiter; read: RateLimiter };
  /** Failed authentications per client; undefined when rate limits are off or no client is named. */
  failedAuth: FailedAuthLimit | undefined;
  /** Source of task ids and request ids. */
  randomUUID: RandomUUID;
  /** Where authenticated uses are noted for "last used" (written coalesced, on ticks). */
  keyUsage: KeyUsageRecorder;
  /** Told of each task created; asked for the trace context a new task keeps. */
  observer: EngineObserver;
}

/**
 * Hono bindings of the engine's app: the request id and, under /api, the
 * authenticated caller and the store its routes use (see `keyCheck` for the one
 * route that may run before its caller is known).
 */
export interface EngineEnv {
  Variables: {
    requestId: string;
    caller: Caller;
    store: Store;
    /**
     * Set on `GET /api/gen/status/:task_id`: the task read with the caller's
     * key (undefined when it does not exist or is another account's).
     */
    statusRead?: { taskId: string; task: TaskStatusRecord | undefined };
    /**
     * Set instead of `caller` on a create whose key its own statement checks:
     * the route concludes it, and `caller` is set from then on.
     */
    keyCheck?: KeyCheck;
  };
}

/**
 * A request's handling under its context (request-context.ts): its response, or a refusal thrown
 * (an `ApiError`) that the context turns into one. No `next`: each layer calls the one it wraps.
 */
export type RouteHandler = (c: Context<EngineEnv>) => Response | Promise<Response>;
