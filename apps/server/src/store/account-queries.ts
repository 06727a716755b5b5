/** Accounts, the credit ledger, API keys, webhook secrets and idempotency records. */
import type {
  AccountRecord,
  ApiKeyRecord,
  IdempotencyRecord,
  LedgerEntry,
  WebhookSecretRecord,
} from "@genvideo/engine";
import { type Selectable, sql } from "kysely";
import { QueryGroup } from "./query-group.js";
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
import { slot } from "./sql-executor.js";
import type {
  AccountsTable,
  ApiKeysTable,
  IdempotencyKeysTable,
  LedgerEntriesTable,
  WebhookSecretsTable,
} from "./tables.js";

export class KyselyAccountQueries extends QueryGroup {
  async getAccount(id: string): Promise<AccountRecord | undefined> {
    const query = this.cached(
      "getAccount",
      () => this.db.selectFrom("accounts").selectAll().where("id", "=", slot(0)),
      [id],
    );
    const row = await this.first<Selectable<AccountsTable>>(query);
    return row && accountFromRow(row);
  }

  async getAccountByName(name: string): Promise<AccountRecord | undefined> {
    const row = await this.first<Selectable<AccountsTable>>(
      this.db.selectFrom("accounts").selectAll().where("name", "=", name),
    );
    return row && accountFromRow(row);
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const rows = await this.rows<Selectable<AccountsTable>>(
      this.db.selectFrom("accounts").selectAll().orderBy("created_at").orderBy("name"),
    );
    return rows.map(accountFromRow);
  }

  async insertAccount(account: AccountRecord): Promise<void> {
    await this.changes(this.db.insertInto("accounts").values(accountToRow(account)));
  }

  /**
   * The balance check is in the UPDATE itself, so two concurrent charges can
   * never overdraw an account, on SQLite or on PostgreSQL.
   */
  async appendLedger(entry: LedgerEntry): Promise<boolean> {
    const update = this.cached(
      "appendLedger.update",
      () =>
        this.db
          .updateTable("accounts")
          .set({ credits: sql<number>`credits + ${slot(0)}` })
          .where("id", "=", slot(1))
          .where(sql<boolean>`credits + ${slot(2)} >= 0`),
      [entry.delta, entry.accountId, entry.delta],
    );
    if ((await this.changes(update)) !== 1) {
      // A missing account is a bug in the caller, not an insufficient balance.
      if (!(await this.getAccount(entry.accountId))) throw new Error(`no account ${entry.accountId}`);
      return false;
    }
    const row = ledgerToRow(entry, entry.accountId);
    const columns = Object.keys(row) as (keyof typeof row)[];
    const insert = this.cached(
      "appendLedger.insert",
      () =>
        this.db
          .insertInto("ledger_entries")
          .values(Object.fromEntries(columns.map((c, i) => [c, slot(i)])) as never),
      columns.map((column) => row[column]),
    );
    await this.changes(insert);
    return true;
  }

  async listLedger(accountId: string): Promise<LedgerEntry[]> {
    const rows = await this.rows<Selectable<LedgerEntriesTable>>(
      this.db
        .selectFrom("ledger_entries")
        .selectAll()
        .where("account_id", "=", accountId)
        .orderBy("created_at")
        .orderBy("id"),
    );
    return rows.map(ledgerFromRow);
  }

  async getApiKey(id: string): Promise<ApiKeyRecord | undefined> {
    const row = await this.first<Selectable<ApiKeysTable>>(
      this.db.selectFrom("api_keys").selectAll().where("id", "=", id),
    );
    return row && apiKeyFromRow(row);
  }

  async getApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const query = this.cached(
      "getApiKeyByHash",
      () => this.db.selectFrom("api_keys").selectAll().where("hash", "=", slot(0)),
      [hash],
    );
    const row = await this.first<Selectable<ApiKeysTable>>(query);
    return row && apiKeyFromRow(row);
  }

  async listApiKeys(accountId: string): Promise<ApiKeyRecord[]> {
    const rows = await this.rows<Selectable<ApiKeysTable>>(
      this.db
        .selectFrom("api_keys")
        .selectAll()
        .where("account_id", "=", accountId)
        .orderBy("created_at")
        .orderBy("id"),
    );
    return rows.map(apiKeyFromRow);
  }

  async insertApiKey(key: ApiKeyRecord): Promise<void> {
    await this.changes(this.db.insertInto("api_keys").values(apiKeyToRow(key)));
  }

  async updateApiKey(
    id: string,
    patch: Partial<Pick<ApiKeyRecord, "revokedAt" | "expiresAt" | "lastUsedAt">>,
  ): Promise<void> {
    const set: { revoked_at?: number | null; expires_at?: number | null; last_used_at?: number | null } = {};
    if (patch.revokedAt !== undefined) set.revoked_at = patch.revokedAt;
    if (patch.expiresAt !== undefined) set.expires_at = patch.expiresAt;
    if (patch.lastUsedAt !== undefined) set.last_used_at = patch.lastUsedAt;
    if (Object.keys(set).length === 0) return;
    await this.changes(this.db.updateTable("api_keys").set(set).where("id", "=", id));
  }

  async listWebhookSecrets(accountId: string): Promise<WebhookSecretRecord[]> {
    const rows = await this.rows<Selectable<WebhookSecretsTable>>(
      this.db
        .selectFrom("webhook_secrets")
        .selectAll()
        .where("account_id", "=", accountId)
        .orderBy("created_at")
        .orderBy("id"),
    );
    return rows.map(webhookSecretFromRow);
  }

  async insertWebhookSecret(secret: WebhookSecretRecord): Promise<void> {
    await this.changes(this.db.insertInto("webhook_secrets").values(webhookSecretToRow(secret)));
  }

  async updateWebhookSecret(
    id: string,
    patch: Partial<Pick<WebhookSecretRecord, "expiresAt">>,
  ): Promise<void> {
    if (patch.expiresAt === undefined) return;
    await this.changes(
      this.db.updateTable("webhook_secrets").set({ expires_at: patch.expiresAt }).where("id", "=", id),
    );
  }

  async getIdempotency(accountId: string, key: string): Promise<IdempotencyRecord | undefined> {
    const row = await this.first<Selectable<IdempotencyKeysTable>>(
      this.db
        .selectFrom("idempotency_keys")
        .selectAll()
        .where("account_id", "=", accountId)
        .where("key", "=", key),
    );
    return row && idempotencyFromRow(row);
  }

  /**
   * One statement, so two racing requests cannot both win: the insert goes in
   * when there is no row, and replaces a row only when that row has expired
   * (at the new record's creation time).
   */
  async insertIdempotency(record: IdempotencyRecord): Promise<boolean> {
    const row = idempotencyToRow(record);
    const query = this.db
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
      );
    return (await this.changes(query)) > 0;
  }

  async completeIdempotency(accountId: string, key: string, status: number, body: string): Promise<void> {
    await this.changes(
      this.db
        .updateTable("idempotency_keys")
        .set({ state: "done", response_status: status, response_body: body })
        .where("account_id", "=", accountId)
        .where("key", "=", key),
    );
  }

  async deleteIdempotency(accountId: string, key: string): Promise<void> {
    await this.changes(
      this.db.deleteFrom("idempotency_keys").where("account_id", "=", accountId).where("key", "=", key),
    );
  }

  async deleteExpiredIdempotency(now: number): Promise<number> {
    return this.changes(this.db.deleteFrom("idempotency_keys").where("expires_at", "<=", now));
  }
}
