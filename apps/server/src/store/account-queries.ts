/** Accounts, the credit ledger, API keys, webhook secrets and idempotency records. */
import type {
  AccountRecord,
  ApiKeyRecord,
  IdempotencyRecord,
  LedgerEntry,
  WebhookSecretRecord,
} from "@genvideo/engine";
import { type Kysely, sql } from "kysely";
import {
  accountFromRow,
  accountToRow,
  apiKeyFromRow,
  apiKeyToRow,
  idempotencyFromRow,
  idempotencyToRow,
  ledgerFromRow,
  ledgerToRow,
  webhookSecretFromRow,
  webhookSecretToRow,
} from "./rows.js";
import type { Database } from "./tables.js";

export class KyselyAccountQueries {
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const row = await this.#db.selectFrom("accounts").selectAll().where("id", "=", id).executeTakeFirst();
    return row && accountFromRow(row);
  }

  async getAccountByName(name: string): Promise<AccountRecord | undefined> {
    const row = await this.#db.selectFrom("accounts").selectAll().where("name", "=", name).executeTakeFirst();
    return row && accountFromRow(row);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const rows = await this.#db
      .selectFrom("accounts")
      .selectAll()
      .orderBy("created_at")
      .orderBy("name")
      .execute();
    return rows.map(accountFromRow);
  }

  async insertAccount(account: AccountRecord): Promise<void> {
    await this.#db.insertInto("accounts").values(accountToRow(account)).execute();
  }

  /**
   * The balance check is in the UPDATE itself, so two concurrent charges can
   * never overdraw an account, on SQLite or on PostgreSQL.
   */
  async appendLedger(entry: LedgerEntry): Promise<boolean> {
    const result = await this.#db
      .updateTable("accounts")
      .set({ credits: sql<number>`credits + ${entry.delta}` })
      .where("id", "=", entry.accountId)
      .where(sql<boolean>`credits + ${entry.delta} >= 0`)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) !== 1) {
      // A missing account is a bug in the caller, not an insufficient balance.
      if (!(await this.getAccount(entry.accountId))) throw new Error(`no account ${entry.accountId}`);
      return false;
    }
    await this.#db.insertInto("ledger_entries").values(ledgerToRow(entry)).execute();
    return true;
  }

  async listLedger(accountId: string): Promise<LedgerEntry[]> {
    const rows = await this.#db
      .selectFrom("ledger_entries")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(ledgerFromRow);
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#db.selectFrom("api_keys").selectAll().where("id", "=", id).executeTakeFirst();
    return row && apiKeyFromRow(row);
  }

  async getApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.#db.selectFrom("api_keys").selectAll().where("hash", "=", hash).executeTakeFirst();
    return row && apiKeyFromRow(row);
  }

  async listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.#db
      .selectFrom("api_keys")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(apiKeyFromRow);
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.#db.insertInto("api_keys").values(apiKeyToRow(key)).execute();
  }

  async updateApiKey(
    id: string,
    patch: Partial<Pick<ApiKeyRecord, "revokedAt" | "expiresAt">>,
  ): Promise<void> {
    const set: { revoked_at?: number | null; expires_at?: number | null } = {};
    if (patch.revokedAt !== undefined) set.revoked_at = patch.revokedAt;
    if (patch.expiresAt !== undefined) set.expires_at = patch.expiresAt;
    if (Object.keys(set).length === 0) return;
    await this.#db.updateTable("api_keys").set(set).where("id", "=", id).execute();
  }

  async listWebhookSecrets(accountId: string): Promise<WebhookSecretRecord[]> {
    const rows = await this.#db
      .selectFrom("webhook_secrets")
      .selectAll()
      .where("account_id", "=", accountId)
      .orderBy("created_at")
      .orderBy("id")
      .execute();
    return rows.map(webhookSecretFromRow);
  }

  async insertWebhookSecret(secret: WebhookSecretRecord): Promise<void> {
    await this.#db.insertInto("webhook_secrets").values(webhookSecretToRow(secret)).execute();
  }

  async updateWebhookSecret(
    id: string,
    patch: Partial<Pick<WebhookSecretRecord, "expiresAt">>,
  ): Promise<void> {
    if (patch.expiresAt === undefined) return;
    await this.#db
      .updateTable("webhook_secrets")
      .set({ expires_at: patch.expiresAt })
      .where("id", "=", id)
      .execute();
  }

  async getIdempotency(accountId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const row = await this.#db
      .selectFrom("idempotency_keys")
      .selectAll()
      .where("account_id", "=", accountId)
      .where("key", "=", key)
      .executeTakeFirst();
    return row && idempotencyFromRow(row);
  }

  /**
   * One statement, so two racing requests cannot both win: the insert goes in
   * when there is no row, and replaces a row only when that row has expired
   * (at the new record's creation time).
   */
  async insertIdempotency(record: IdempotencyRecord): Promise<boolean> {
    const row = idempotencyToRow(record);
    const result = await this.#db
      .insertInto("idempotency_keys")
      .values(row)
      .onConflict((conflict) =>
        conflict
          .columns(["account_id", "key"])
          .doUpdateSet({
            request_hash: row.request_hash,
            state: row.state,
            response_status: row.response_status,
            response_body: row.response_body,
            created_at: row.created_at,
            expires_at: row.expires_at,
          })
          .where("idempotency_keys.expires_at", "<=", record.createdAt),
      )
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0n) > 0;
  }

  async completeIdempotency(accountId: string, key: string, status: number, body: string): Promise<void> {
    await this.#db
      .updateTable("idempotency_keys")
      .set({ state: "done", response_status: status, response_body: body })
      .where("account_id", "=", accountId)
      .where("key", "=", key)
      .execute();
  }

  async deleteIdempotency(accountId: string, key: string): Promise<void> {
    await this.#db
      .deleteFrom("idempotency_keys")
      .where("account_id", "=", accountId)
      .where("key", "=", key)
      .execute();
  }

  async deleteExpiredIdempotency(now: number): Promise<number> {
    const result = await this.#db
      .deleteFrom("idempotency_keys")
      .where("expires_at", "<=", now)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
