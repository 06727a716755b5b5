/**
 * The server's SQLite file, opened directly: for tests that check what a
 * killed or running server has committed, or age a lease instead of waiting.
 */
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

/** Runs `use` on `<dataDir>/genvideo.db` (read-only unless `readOnly: false`), then closes it. */
export function withServerDatabase<T>(
  dataDir: string,
  use: (database: DatabaseSync) => T,
  { readOnly = true }: { readOnly?: boolean } = {},
): T {
  const database = new DatabaseSync(join(dataDir, "genvideo.db"), { readOnly });
  try {
    return use(database);
  } finally {
    database.close();
  }
}
