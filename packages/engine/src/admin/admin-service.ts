import type { Clock } from "../clock.js";
import { grantCredits } from "../credits/ledger.js";
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey, suppliedApiKeyProblem } from "../keys/api-key.js";
import {
  generateWebhookSecret,
  liveWebhookSecrets,
  suppliedWebhookSecretProblem,
} from "../keys/webhook-secret.js";
import type {
  AccountRecord,
  ApiKeyRecord,
  LedgerEntry,
  Store,
  StoreTransaction,
  WebhookEventRecord,
  WebhookSecretRecord,
} from "../ports.js";
import {
  listTaskWebhookEvents,
  redeliverTaskWebhook,
  type WebhookEventWithAttempts,
} from "../webhooks/webhook-events.js";

/** The name of the account `bootstrap` creates on a first start. */
export const DEFAULT_ACCOUNT_NAME = "default";
/** Credits of the bootstrapped default account. */
export const DEFAULT_ACCOUNT_CREDITS = 1000;

/** A key as listings show it: never the key, never its hash. */
export type ApiKeySummary = Omit<ApiKeyRecord, "hash">;

/** A new key, returned once: only its hash is kept. */
export interface CreatedApiKey {
  key: string;
  apiKey: ApiKeySummary;
}

/** What a new key may carry besides its account. */
export interface ApiKeyOptions {
  /** A label for listings, at most `API_KEY_NAME_MAX` characters; default none. */
  name?: string;
  /** Service time from which the key is refused; default never. Must be in the future. */
  expiresAt?: number | null;
}

/** Longest key name accepted. */
export const API_KEY_NAME_MAX = 64;

export interface BootstrapOptions {
  /** Use exactly this key for the default account (20 to 255 of `[A-Za-z0-9_-]`). */
  apiKey?: string;
  /** Use exactly this webhook secret (`whsec_<base64>`). */
  webhookSecret?: string;
}

/** What `bootstrap` did. The key and secret are present only when they were just made (print them once). */
export interface BootstrapResult {
  created: boolean;
  account: AccountRecord;
  apiKey?: string;
  webhookSecret?: string;
}

const ADMIN_ERROR = Symbol.for("genvideo.engine.AdminError");

/** Thrown for an operator mistake (unknown account, bad bootstrap key); the message is for the CLI. */
export class AdminError extends Error {
  override name = "AdminError";

  constructor(message: string) {
    super(message);
    // A symbol brand instead of instanceof: it survives duplicate copies of this package.
    Object.defineProperty(this, ADMIN_ERROR, { value: true });
  }

  /** True for an AdminError from any copy of this package (cross-realm safe). */
  static isInstance(value: unknown): value is AdminError {
    return typeof value === "object" && value !== null && ADMIN_ERROR in value;
  }
}

/**
 * What the CLI and embedders do to accounts, keys and webhooks. Every change is
 * one transaction. Keys are returned in clear once, at creation.
 */
export interface AdminService {
  createAccount(name: string, credits?: number): Promise<{ account: AccountRecord; webhookSecret: string }>;
  listAccounts(): Promise<AccountRecord[]>;
  /** By id or by name. */
  getAccount(idOrName: string): Promise<AccountRecord | undefined>;
  /** Adds credits (a positive whole number) and returns the account with its new balance. */
  creditAccount(accountId: string, credits: number): Promise<AccountRecord>;
  listLedger(accountId: string): Promise<LedgerEntry[]>;
  createApiKey(accountId: string, options?: ApiKeyOptions): Promise<CreatedApiKey>;
  listApiKeys(accountId: string): Promise<ApiKeySummary[]>;
  /** Refused from the next request on. */
  revokeApiKey(keyId: string): Promise<ApiKeySummary>;
  /** A new key for the same account (same name); the old one keeps working for `overlapMs`, then expires. */
  rotateApiKey(keyId: string, overlapMs: number): Promise<CreatedApiKey & { previous: ApiKeySummary }>;
  /** A new signing secret; the current ones keep signing too for `overlapMs`. */
  rotateWebhookSecret(accountId: string, overlapMs: number): Promise<string>;
  /** The secret webhooks are signed with now (newest live one). */
  currentWebhookSecret(accountId: string): Promise<string | undefined>;
  /**
   * Every secret webhooks are signed with now, newest first: the current one, then any rotated out
   * whose overlap has not ended (`expiresAt`, service time). A delivery carries one signature per secret.
   */
  signingSecrets(accountId: string): Promise<Omit<WebhookSecretRecord, "accountId">[]>;
  /** Creates the default account (1000 credits) on first start only; idempotent afterwards. */
  bootstrap(options?: BootstrapOptions): Promise<BootstrapResult>;
  listWebhookEvents(taskId: string): Promise<WebhookEventWithAttempts[]>;
  redeliver(taskId: string): Promise<WebhookEventRecord | undefined>;
}

function summary({ hash: _hash, ...rest }: ApiKeyRecord): ApiKeySummary {
  return rest;
}

/** A key name as stored: trimmed, printable, at most `API_KEY_NAME_MAX` characters. */
/** The name of the key the first start creates (and prints). */
export const BOOTSTRAP_KEY_NAME = "first start";

function keyName(name: string | undefined): string {
  const trimmed = (name ?? "").trim();
  if (trimmed.length > API_KEY_NAME_MAX)
    throw new AdminError(`a key name has at most ${API_KEY_NAME_MAX} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point.
  if (/[\u0000-\u001f\u007f]/.test(trimmed))
    throw new AdminError("a key name cannot hold control characters");
  return trimmed;
}

/** Builds the admin service over a store and the service clock. */
export function createAdminService(store: Store, clock: Clock): AdminService {
  async function requireAccount(tx: StoreTransaction, accountId: string): Promise<AccountRecord> {
    const account = await tx.getAccount(accountId);
    if (!account) throw new AdminError(`no account with id ${accountId}`);
    return account;
  }

  async function insertKey(
    tx: StoreTransaction,
    accountId: string,
    key: string,
    now: number,
    options: { name?: string; expiresAt?: number | null } = {},
  ) {
    const record: ApiKeyRecord = {
      id: crypto.randomUUID(),
      accountId,
      hash: await hashApiKey(key),
      prefix: apiKeyDisplayPrefix(key),
      createdAt: now,
      revokedAt: null,
      expiresAt: options.expiresAt ?? null,
      name: options.name ?? "",
      lastUsedAt: null,
    };
    await tx.insertApiKey(record);
    return record;
  }

  async function insertSecret(tx: StoreTransaction, accountId: string, secret: string, now: number) {
    await tx.insertWebhookSecret({
      id: crypto.randomUUID(),
      accountId,
      secret,
      createdAt: now,
      expiresAt: null,
    });
  }

  async function insertAccount(
    tx: StoreTransaction,
    name: string,
    credits: number,
    secret: string,
    now: number,
  ) {
    if (name.trim() === "") throw new AdminError("an account needs a name");
    if (await tx.getAccountByName(name)) throw new AdminError(`an account named "${name}" exists`);
    const account: AccountRecord = { id: crypto.randomUUID(), name, credits: 0, createdAt: now };
    await tx.insertAccount(account);
    if (credits > 0) await grantCredits(tx, account.id, credits, now);
    await insertSecret(tx, account.id, secret, now);
    return { ...account, credits };
  }

  async function keyForRotation(tx: StoreTransaction, keyId: string) {
    const key = await tx.getApiKey(keyId);
    if (!key) throw new AdminError(`no API key with id ${keyId}`);
    return key;
  }

  return {
    async createAccount(name, credits = 0) {
      if (!Number.isInteger(credits) || credits < 0)
        throw new AdminError("credits must be a whole number ≥ 0");
      const webhookSecret = generateWebhookSecret();
      return store.transaction(async (tx) => ({
        account: await insertAccount(tx, name, credits, webhookSecret, clock.now()),
        webhookSecret,
      }));
    },
    listAccounts: () => store.transaction((tx) => tx.listAccounts()),
    getAccount: (idOrName) =>
      store.transaction(
        async (tx) => (await tx.getAccount(idOrName)) ?? (await tx.getAccountByName(idOrName)),
      ),
    async creditAccount(accountId, credits) {
      if (!Number.isInteger(credits) || credits <= 0)
        throw new AdminError("credits must be a positive whole number");
      return store.transaction(async (tx) => {
        await requireAccount(tx, accountId);
        await grantCredits(tx, accountId, credits, clock.now());
        return requireAccount(tx, accountId);
      });
    },
    listLedger: (accountId) => store.transaction((tx) => tx.listLedger(accountId)),
    async createApiKey(accountId, options = {}) {
      const name = keyName(options.name);
      const key = await generateApiKey();
      return store.transaction(async (tx) => {
        await requireAccount(tx, accountId);
        const now = clock.now();
        const expiresAt = options.expiresAt ?? null;
        if (expiresAt !== null && !(Number.isFinite(expiresAt) && expiresAt > now))
          throw new AdminError("a key's expiry must be a time in the future");
        return { key, apiKey: summary(await insertKey(tx, accountId, key, now, { name, expiresAt })) };
      });
    },
    listApiKeys: (accountId) =>
      store.transaction(async (tx) => (await tx.listApiKeys(accountId)).map(summary)),
    revokeApiKey: (keyId) =>
      store.transaction(async (tx) => {
        const key = await keyForRotation(tx, keyId);
        const revokedAt = key.revokedAt ?? clock.now();
        await tx.updateApiKey(keyId, { revokedAt });
        return summary({ ...key, revokedAt });
      }),
    async rotateApiKey(keyId, overlapMs) {
      if (!(overlapMs >= 0)) throw new AdminError("the overlap must be zero or more milliseconds");
      const key = await generateApiKey();
      return store.transaction(async (tx) => {
        const previous = await keyForRotation(tx, keyId);
        if (previous.revokedAt !== null) throw new AdminError(`API key ${keyId} is revoked`);
        const now = clock.now();
        const expiresAt = Math.min(previous.expiresAt ?? Number.POSITIVE_INFINITY, now + overlapMs);
        await tx.updateApiKey(keyId, { expiresAt });
        // The new key lives as long as the old one was made to (a 30-day key's successor expires in 30 days).
        const lifetime = previous.expiresAt === null ? null : previous.expiresAt - previous.createdAt;
        const created = await insertKey(tx, previous.accountId, key, now, {
          name: previous.name,
          expiresAt: lifetime === null || lifetime <= 0 ? null : now + lifetime,
        });
        return { key, apiKey: summary(created), previous: summary({ ...previous, expiresAt }) };
      });
    },
    async rotateWebhookSecret(accountId, overlapMs) {
      if (!(overlapMs >= 0)) throw new AdminError("the overlap must be zero or more milliseconds");
      const secret = generateWebhookSecret();
      return store.transaction(async (tx) => {
        await requireAccount(tx, accountId);
        const now = clock.now();
        for (const old of await tx.listWebhookSecrets(accountId)) {
          if (old.expiresAt === null || old.expiresAt > now + overlapMs)
            await tx.updateWebhookSecret(old.id, { expiresAt: now + overlapMs });
        }
        await insertSecret(tx, accountId, secret, now);
        return secret;
      });
    },
    currentWebhookSecret: (accountId) =>
      store.transaction(async (tx) => {
        return liveWebhookSecrets(await tx.listWebhookSecrets(accountId), clock.now())[0]?.secret;
      }),
    signingSecrets: (accountId) =>
      store.transaction(async (tx) =>
        liveWebhookSecrets(await tx.listWebhookSecrets(accountId), clock.now()).map(
          ({ accountId: _accountId, ...secret }) => secret,
        ),
      ),
    async bootstrap(options = {}) {
      const keyProblem =
        options.apiKey === undefined ? undefined : await suppliedApiKeyProblem(options.apiKey);
      if (keyProblem) throw new AdminError(`GENVIDEO_BOOTSTRAP_API_KEY ${keyProblem}`);
      const secretProblem =
        options.webhookSecret === undefined ? undefined : suppliedWebhookSecretProblem(options.webhookSecret);
      if (secretProblem) throw new AdminError(`GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET ${secretProblem}`);
      const apiKey = options.apiKey ?? (await generateApiKey());
      const webhookSecret = options.webhookSecret ?? generateWebhookSecret();
      return store.transaction(async (tx): Promise<BootstrapResult> => {
        const now = clock.now();
        const existing = await tx.getAccountByName(DEFAULT_ACCOUNT_NAME);
        if (!existing) {
          const account = await insertAccount(
            tx,
            DEFAULT_ACCOUNT_NAME,
            DEFAULT_ACCOUNT_CREDITS,
            webhookSecret,
            now,
          );
          await insertKey(tx, account.id, apiKey, now, { name: BOOTSTRAP_KEY_NAME });
          return { created: true, account, apiKey, webhookSecret };
        }
        // Later starts: a supplied key or secret is made to work (scripted setups
        // may change them); nothing is printed again.
        if (options.apiKey !== undefined) {
          const known = await tx.getApiKeyByHash(await hashApiKey(options.apiKey));
          if (known && known.accountId !== existing.id)
            throw new AdminError("GENVIDEO_BOOTSTRAP_API_KEY belongs to another account");
          if (!known) await insertKey(tx, existing.id, options.apiKey, now);
          else if (known.revokedAt !== null || known.expiresAt !== null)
            await tx.updateApiKey(known.id, { revokedAt: null, expiresAt: null });
        }
        if (options.webhookSecret !== undefined) {
          const secrets = await tx.listWebhookSecrets(existing.id);
          const current = secrets.sort((a, b) => b.createdAt - a.createdAt)[0];
          if (current?.secret !== options.webhookSecret || current.expiresAt !== null) {
            for (const old of secrets)
              if (old.expiresAt === null) await tx.updateWebhookSecret(old.id, { expiresAt: now });
            await insertSecret(tx, existing.id, options.webhookSecret, now);
          }
        }
        return { created: false, account: existing };
      });
    },
    listWebhookEvents: (taskId) => listTaskWebhookEvents(store, taskId),
    redeliver: (taskId) => redeliverTaskWebhook(store, taskId, clock.now()),
  };
}
