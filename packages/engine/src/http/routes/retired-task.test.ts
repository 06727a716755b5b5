import { describe, expect, it } from "vitest";
import { createHarness } from "../../../test/support/harness.js";

describe("a task deleted by history retention", () => {
  it("answers 404 NOT_FOUND saying it passed retention, to its own account only", async () => {
    const h = await createHarness();
    const taskId = await h.create({ prompt: "a lighthouse" });
    await h.advance(120_000);
    expect((await h.status(taskId)).status).toBe("completed");
    const { updatedAt } = (await h.store.transaction((tx) => tx.getTask(taskId)))!;
    const deleted = await h.store.transaction((tx) => tx.deleteEndedTasks(updatedAt + 1, 0, 10));
    expect(deleted.tasks).toBe(1);

    for (const path of [`/api/gen/status/${taskId}`, `/api/gen/tasks/${taskId}/webhooks`]) {
      const response = await h.call("GET", path);
      expect(response.status, path).toBe(404);
      expect(await response.json()).toEqual({
        error: "Not Found",
        code: "NOT_FOUND",
        message: `This task ended at ${new Date(updatedAt).toISOString()} and has been deleted since: ended tasks are kept for a limited time (history retention).`,
      });
    }

    // Another account's key learns nothing more than for a task that never existed.
    const { account: other } = await h.engine.admin.createAccount("other", 5);
    const { key } = await h.engine.admin.createApiKey(other.id);
    const theirs = await (await h.call("GET", `/api/gen/status/${taskId}`, { key })).json();
    const never = await (await h.call("GET", `/api/gen/status/${crypto.randomUUID()}`, { key })).json();
    expect(theirs).toEqual(never);
    expect(theirs.message).toBe("No task with this task_id exists for this account.");
  });
});
