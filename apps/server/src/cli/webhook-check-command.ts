/**
 * `webhooks check <url>`: grades a webhook receiver with the SDK's receiver check, signed with the
 * account's current secret (or `--secret`). From the command line any http(s) URL is allowed,
 * loopback included: it is the developer's own machine, not a server strangers can point at things.
 */
import { DEFAULT_ACCOUNT_NAME } from "@genvideo/engine";
import { checkWebhookReceiver, formatWebhookCheckReport } from "@genvideo/sdk/receiver-check";
import { DashboardQueries } from "../store/dashboard-queries.js";
import { type AdminContext, requireAccount } from "./admin-context.js";
import { type CliIo, type CliOptions, CommandError, UsageError } from "./command-line.js";

const usage = "webhooks check <url> [--secret whsec_...] [--task <id>] [--account <name>] [--json]";
const secretPattern = /^whsec_[A-Za-z0-9+/]+={0,2}$/;
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function runWebhookCheck(call: {
  rest: string[];
  options: CliOptions;
  context: AdminContext;
  io: CliIo;
}): Promise<number> {
  const { rest, options, context, io } = call;
  if (rest.length !== 1 || !rest[0]) throw new UsageError(`usage: ${usage}`);
  const target = receiverUrl(rest[0]);
  if (options.secret !== undefined && !secretPattern.test(options.secret)) {
    throw new UsageError("--secret must be whsec_ followed by base64, as the account's secret is");
  }
  if (options.task !== undefined && !uuidPattern.test(options.task)) {
    throw new UsageError(`--task takes a task id (a UUID), got "${options.task}"`);
  }

  // The account matters only for its secret and its tasks: `--secret` alone needs none.
  const account =
    options.secret === undefined || options.task !== undefined
      ? await requireAccount(context.admin, options.account ?? DEFAULT_ACCOUNT_NAME, io)
      : undefined;
  const secret = options.secret ?? (account && (await context.admin.currentWebhookSecret(account.id)));
  if (!secret) throw new CommandError(`account "${account?.name}" has no live webhook secret; pass --secret`);
  if (account && options.task !== undefined) {
    const [task] = await new DashboardQueries(context.db).tasksByIds(account.id, [options.task]);
    if (!task) throw new CommandError(`account "${account.name}" has no task ${options.task}`);
  }

  const report = await checkWebhookReceiver(target, {
    secret,
    ...(options.task !== undefined ? { taskId: options.task } : {}),
  });
  if (options.json) {
    io.out(JSON.stringify(report, null, 2));
  } else {
    // Which secret signed, never the secret itself.
    io.out(
      options.secret !== undefined
        ? "Signed with the secret given by --secret."
        : `Signed with the current webhook secret of account "${account?.name}".`,
    );
    io.out(formatWebhookCheckReport(report));
  }
  return report.ok ? 0 : 1;
}

function receiverUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(
      `"${text}" is not a URL; give the receiver's full URL, like http://127.0.0.1:3000/hooks`,
    );
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UsageError(`the receiver's URL must be http: or https:, got ${url.protocol}`);
  }
  return url.href;
}
