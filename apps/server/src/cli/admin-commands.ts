/** `accounts`, `keys`, `webhooks` and `dashboard`: thin wrappers that print what the admin service did. */
import {
  type AccountRecord,
  type ApiKeySummary,
  DEFAULT_ACCOUNT_NAME,
  parseDuration,
} from "@genvideo/engine";
import { isoTime } from "../clock/time-text.js";
import { defaultPublicUrl } from "../config.js";
import { KEY_STATE_WORDS, keyLabel, keyState } from "../dashboard/key-state.js";
import { createSignInLink } from "../dashboard/sessions.js";
import { DashboardQueries } from "../store/dashboard-queries.js";
import { type AdminContext, requireAccount } from "./admin-context.js";
import { type CliIo, type CliOptions, CommandError, UsageError } from "./command-line.js";
import { formatTable } from "./format.js";
import { cliInvocation } from "./invocation.js";
import { nearestCommand } from "./nearest-command.js";
import { runWebhookCheck } from "./webhook-check-command.js";

/** What run-cli.ts calls for `accounts …`, `keys …` and `webhooks …`. */
type AdminCommand = (
  args: string[],
  options: CliOptions,
  context: AdminContext,
  io: CliIo,
) => Promise<number>;
/** One action of a command (`keys rotate`), given the arguments after its name. */
type AdminAction = (call: {
  rest: string[];
  options: CliOptions;
  admin: AdminContext["admin"];
  context: AdminContext;
  io: CliIo;
}) => Promise<number>;

/**
 * A command whose first argument names one of `actions`. The usage error lists the actions
 * from the table itself, so it names every action there is and no other.
 */
function commandWithActions(command: string, actions: Record<string, AdminAction>): AdminCommand {
  const names = Object.keys(actions);
  const listed = names.length > 1 ? `${names.slice(0, -1).join(", ")} or ${names.at(-1)}` : names.join("");
  return (args, options, context, io) => {
    const [action, ...rest] = args;
    const run = action !== undefined && Object.hasOwn(actions, action) ? actions[action] : undefined;
    if (!run) {
      const meant = action === undefined ? undefined : nearestCommand(action, names);
      throw new UsageError(
        `${command} takes ${listed}, got "${action ?? ""}"${
          meant ? `; did you mean: ${[cliInvocation(io.env), command, meant, ...rest].join(" ")}` : ""
        }`,
      );
    }
    return run({ rest, options, admin: context.admin, context, io });
  };
}

export const runAccountsCommand: AdminCommand = commandWithActions("accounts", {
  async create({ rest, options, admin, io }) {
    const name = single(rest, "accounts create <name>");
    const credits = options.credits === undefined ? 0 : wholeNumber(options.credits, "--credits");
    const { account, webhookSecret } = await admin.createAccount(name, credits);
    io.out(`Created account "${account.name}" (${account.id}) with ${account.credits} credits.`);
    io.out("Webhook signing secret (shown once, store it now):");
    io.out(webhookSecret);
    io.out(`Create an API key with: ${cliInvocation(io.env)} keys create --account ${account.name}`);
    return 0;
  },
  async list({ rest, options, admin, io }) {
    none(rest, "accounts list");
    const accounts = await admin.listAccounts();
    if (options.json) io.out(JSON.stringify(accounts, null, 2));
    else
      io.out(
        formatTable(
          ["NAME", "CREDITS", "ID", "CREATED"],
          accounts.map((a) => [a.name, String(a.credits), a.id, isoTime(a.createdAt)]),
        ),
      );
    return 0;
  },
  async show({ rest, options, admin, context, io }) {
    const account = await requireAccount(admin, single(rest, "accounts show <name>"), io);
    const [keys, ledger] = await Promise.all([admin.listApiKeys(account.id), admin.listLedger(account.id)]);
    if (options.json) {
      io.out(JSON.stringify({ account, keys, ledger }, null, 2));
      return 0;
    }
    io.out(`Account ${account.name} (${account.id})`);
    io.out(`Credits: ${account.credits}`);
    io.out(`Created: ${isoTime(account.createdAt)}`);
    io.out("");
    io.out(keyTable(keys, context.clock.now(), account));
    io.out("");
    const recent = ledger.slice(-20);
    io.out(
      `Ledger (${ledger.length} entries${ledger.length > recent.length ? `, last ${recent.length}` : ""}):`,
    );
    io.out(
      formatTable(
        ["TIME", "REASON", "DELTA", "TASK"],
        recent.map((e) => [isoTime(e.createdAt), e.reason, signed(e.delta), e.taskId ?? ""]),
      ),
    );
    return 0;
  },
  async credit({ rest, admin, io }) {
    if (rest.length !== 2) throw new UsageError("usage: accounts credit <name> <N>");
    const account = await requireAccount(admin, rest[0]!, io);
    const updated = await admin.creditAccount(account.id, wholeNumber(rest[1]!, "<N>"));
    io.out(`Account "${updated.name}" now has ${updated.credits} credits.`);
    return 0;
  },
});

export const runKeysCommand: AdminCommand = commandWithActions("keys", {
  async create({ rest, options, admin, context, io }) {
    none(rest, "keys create [--account <name>] [--name <label>] [--expires 30d]");
    const account = await requireAccount(admin, options.account ?? DEFAULT_ACCOUNT_NAME, io);
    const expiresAt = options.expires === undefined ? null : context.clock.now() + expiryOf(options.expires);
    const { key, apiKey } = await admin.createApiKey(account.id, { name: options.name ?? "", expiresAt });
    io.out(`Created API key ${apiKey.id} for account "${account.name}" (shown once, store it now):`);
    io.out(key);
    if (expiresAt !== null) io.out(`It expires ${isoTime(expiresAt)} (service time).`);
    return 0;
  },
  async list({ rest, options, admin, context, io }) {
    none(rest, "keys list [--account <name>]");
    const accounts =
      options.account === undefined
        ? await admin.listAccounts()
        : [await requireAccount(admin, options.account, io)];
    const keys = (await Promise.all(accounts.map((a) => admin.listApiKeys(a.id)))).flat();
    if (options.json) io.out(JSON.stringify(keys, null, 2));
    else io.out(keyTable(keys, context.clock.now(), ...accounts));
    return 0;
  },
  async revoke({ rest, admin, io }) {
    const revoked = await admin.revokeApiKey(single(rest, "keys revoke <id>"));
    io.out(`Revoked API key ${revoked.id} (${revoked.prefix}…): refused from its next request on.`);
    return 0;
  },
  async rotate({ rest, options, admin, io }) {
    const id = single(rest, "keys rotate <id> [--overlap 24h]");
    const overlapMs = overlapOf(options);
    const { key, apiKey, previous } = await admin.rotateApiKey(id, overlapMs);
    io.out(`Created API key ${apiKey.id} replacing ${previous.id} (shown once, store it now):`);
    io.out(key);
    io.out(
      `The old key ${previous.prefix}… keeps working until ${isoTime(previous.expiresAt)} (service time).`,
    );
    return 0;
  },
});

export const runWebhooksCommand: AdminCommand = commandWithActions("webhooks", {
  check: runWebhookCheck,
  async list({ rest, options, admin, io }) {
    none(rest, "webhooks list --task <id>");
    if (!options.task) throw new UsageError("usage: webhooks list --task <id>");
    const events = await admin.listWebhookEvents(options.task);
    if (options.json) {
      io.out(JSON.stringify(events, null, 2));
      return 0;
    }
    if (events.length === 0) io.out(`No webhook deliveries for task ${options.task}.`);
    for (const event of events) {
      io.out(
        `${event.id}  ${event.state}  ${event.attemptCount} attempt${event.attemptCount === 1 ? "" : "s"}  ${event.url}`,
      );
      for (const attempt of event.attempts) {
        const outcome =
          attempt.statusCode !== null ? `HTTP ${attempt.statusCode}` : (attempt.error ?? "no response");
        io.out(`  #${attempt.attempt}  ${isoTime(attempt.startedAt)}  ${outcome}  ${attempt.durationMs} ms`);
      }
    }
    return 0;
  },
  async redeliver({ rest, admin, io }) {
    const taskId = single(rest, "webhooks redeliver <task_id>");
    const event = await admin.redeliver(taskId);
    if (!event)
      throw new CommandError(
        `task ${taskId} has no webhook to redeliver (unknown, unfinished or without callback_url)`,
      );
    io.out(`Queued delivery ${event.id} of task ${taskId} to ${event.url}.`);
    return 0;
  },
  async "rotate-secret"({ rest, options, admin, io }) {
    none(rest, "webhooks rotate-secret [--account <name>] [--overlap 24h]");
    const account = await requireAccount(admin, options.account ?? DEFAULT_ACCOUNT_NAME, io);
    const overlapMs = overlapOf(options);
    const secret = await admin.rotateWebhookSecret(account.id, overlapMs);
    io.out(`New webhook signing secret for account "${account.name}" (shown once, store it now):`);
    io.out(secret);
    io.out(
      overlapMs === 0
        ? "The previous secret no longer signs."
        : `Webhooks carry a signature of the previous secret too for ${options.overlap ?? "24h"} (service time), then only the new one.`,
    );
    return 0;
  },
});

export const runDashboardCommand: AdminCommand = commandWithActions("dashboard", {
  async link({ rest, options, admin, context, io }) {
    none(rest, "dashboard link [--account <name>]");
    const account = await requireAccount(admin, options.account ?? DEFAULT_ACCOUNT_NAME, io);
    const publicUrl = context.config.publicUrl ?? defaultPublicUrl(context.config.host, context.config.port);
    const { url } = await createSignInLink(new DashboardQueries(context.db), account.id, publicUrl);
    io.out(`Dashboard sign-in link for account "${account.name}" (works once, for 15 minutes):`);
    io.out(url);
    return 0;
  },
});

function keyTable(keys: ApiKeySummary[], now: number, ...accounts: AccountRecord[]): string {
  const names = new Map(accounts.map((a) => [a.id, a.name]));
  return formatTable(
    ["ID", "NAME", "PREFIX", "ACCOUNT", "STATE", "CREATED", "EXPIRES"],
    keys.map((k) => [
      k.id,
      keyLabel(k),
      `${k.prefix}…`,
      names.get(k.accountId) ?? k.accountId,
      KEY_STATE_WORDS[keyState(k, now)],
      isoTime(k.createdAt),
      isoTime(k.expiresAt),
    ]),
  );
}

function single(args: string[], usage: string): string {
  if (args.length !== 1 || !args[0]) throw new UsageError(`usage: ${usage}`);
  return args[0];
}

function none(args: string[], usage: string): void {
  if (args.length > 0) throw new UsageError(`usage: ${usage}`);
}

function wholeNumber(text: string, name: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value)) {
    throw new UsageError(`${name} must be a whole number, got "${text}"`);
  }
  return value;
}

function signed(value: number): string {
  return value > 0 ? `+${value}` : String(value);
}

/** `--overlap` in ms, 24 h when absent (durations as `parseDuration` reads them: `24h`, `30m`, `0`). */
function expiryOf(text: string): number {
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch {
    ms = 0;
  }
  if (ms <= 0) throw new UsageError(`--expires must be a duration like 30d, 12h or 90m, got "${text}"`);
  return ms;
}

function overlapOf(options: CliOptions): number {
  try {
    return parseDuration(options.overlap ?? "24h");
  } catch {
    throw new UsageError(`--overlap must be a duration like 24h, 30m or 0, got "${options.overlap}"`);
  }
}
