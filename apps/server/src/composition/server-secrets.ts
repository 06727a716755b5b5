/**
 * Server-side secrets that must outlive a restart (a video URL handed out
 * yesterday must still verify today), kept in the database beside the data
 * they protect rather than in a file the operator has to back up separately.
 */
import { randomBytes } from "node:crypto";
import type { Kysely } from "kysely";
import type { Database } from "../store/tables.js";

const VIDEO_SIGNING_KEY = "video_url_signing_key";

export async function videoSigningKey(db: Kysely<Database>): Promise<string> {
  // Insert-if-absent then read: two processes starting together agree on one key.
  await db
    .insertInto("service_state")
    .values({ name: VIDEO_SIGNING_KEY, value: randomBytes(32).toString("base64url") })
    .onConflict((conflict) => conflict.column("name").doNothing())
    .execute();
  const row = await db
    .selectFrom("service_state")
    .select("value")
    .where("name", "=", VIDEO_SIGNING_KEY)
    .executeTakeFirstOrThrow();
  return row.value;
}
