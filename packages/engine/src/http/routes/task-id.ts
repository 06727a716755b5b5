import type { Store } from "../../ports.js";
import { ApiError } from "../api-error.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `:task_id` path parameter, checked to be a UUID (400 otherwise) and lowercased. */
export function taskIdParameter(value: string | undefined): string {
  if (value === undefined || !UUID.test(value)) {
    throw new ApiError("INVALID_REQUEST", "task_id must be a UUID, as returned by POST /api/gen/generate.", {
      issues: [{ path: "task_id", message: "must be a UUID" }],
    });
  }
  return value.toLowerCase();
}

/** The 404 for a task that doesn't exist or belongs to another account: the two look the same. */
function taskNotFound(): ApiError {
  return new ApiError("NOT_FOUND", "No task with this task_id exists for this account.");
}

/**
 * The 404 for a task this account cannot see. A task of the account that
 * history retention deleted says so, with the time it ended (docs/api.md,
 * "History retention"); any other looks like `taskNotFound()`.
 */
export async function missingTask(store: Store, taskId: string, accountId: string): Promise<ApiError> {
  const retired = await store.transaction((tx) => tx.getRetiredTask(taskId), { readOnly: true });
  if (retired?.accountId !== accountId) return taskNotFound();
  return new ApiError(
    "NOT_FOUND",
    `This task ended at ${new Date(retired.endedAt).toISOString()} and has been deleted since: ended tasks are kept for a limited time (history retention).`,
  );
}
