// Fills the database with finished tasks straight through SQL (a hundred
// thousand API calls would take minutes and measure something else).
import { DatabaseSync } from "node:sqlite";

export function seedTasks(databasePath, accountId, count, now = Date.now()) {
  const database = new DatabaseSync(databasePath);
  database.exec("PRAGMA busy_timeout = 10000");
  const insert = database.prepare(`insert into tasks (
      id, account_id, state, failure_code, model_type, aspect_ratio, callback_url, scenario, scenario_fail,
      cost, refunded_at, progress, created_at, updated_at, started_at, finish_at, deadline_at, completed_at,
      video_key, lease_owner, lease_expires_at, request)
    values (?, ?, ?, ?, 'gen-3-fast', '16:9', null, '{}', null, 1, null, ?, ?, ?, ?, ?, ?, ?, ?, null, null, ?)`);
  const ids = [];
  database.exec("begin");
  for (let index = 0; index < count; index++) {
    const id = crypto.randomUUID();
    const created = now - (count - index) * 1000;
    const failed = index % 10 === 0;
    const request = JSON.stringify({
      prompt: `seeded task ${index}`,
      model_type: "gen-3-fast",
      aspect_ratio: "16:9",
    });
    insert.run(
      id,
      accountId,
      failed ? "failed" : "completed",
      failed ? "UNSAFE_CONTENT" : null,
      failed ? 0 : 100,
      created,
      created + 60_000,
      created,
      created + 60_000,
      created + 600_000,
      created + 60_000,
      failed ? null : `${id}.mp4`,
      // A text request: small, so it stays in the task row (migration 0004).
      request,
    );
    ids.push(id);
  }
  database.exec("commit");
  database.close();
  return ids;
}
