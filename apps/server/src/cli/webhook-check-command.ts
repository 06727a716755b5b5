/**
 * `webhooks check <url>`: grades a webhook receiver with the SDK's receiver check, signed as the
 * service signs now: with every live secret of the account, so that during a rotation's overlap a
 * receiver still on the older secret passes, and is told until when that secret signs (or with
 * `--secret` alone). From the command line any http(s) URL is allowed, loopback included: it is the
 * developer's own machine, not a server strangers can point at things.
 */
import { DEFAULT_ACCOUNT_NAME } from "@genvideo/engine";
import { checkWebhookReceiver, formatWebhookCheckReport } from "@genvideo/sdk/receiver-check";
import { isoTime, roughDuration } from "../clock/time-text.js";
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

  // The account matters only for its secrets and its tasks: `--secret` alone needs none.
  const account =
    options.secret === undefined || options.task !== undefined
      ? await requireAccount(context.admin, options.account ?? DEFAULT_ACCOUNT_NAME, io)
      : undefined;
  const signing =
    options.secret === undefined && account ? await context.admin.signingSecrets(account.id) : [];
  const secrets = options.secret !== undefined ? [options.secret] : signing.map((entry) => entry.secret);
  if (secrets.length === 0)
    throw new CommandError(`account "${account?.name}" has no live webhook secret; pass --secret`);
  if (account && options.task !== undefined) {
    const [task] = await new DashboardQueries(context.db).tasksByIds(account.id, [options.task]);
    if (!task) throw new CommandError(`account "${account.name}" has no task ${options.task}`);
  }

  const report = await checkWebhookReceiver(target, {
    secret: secrets,
    ...(options.task !== undefined ? { taskId: options.task } : {}),
  });
  if (options.json) {
    io.out(JSON.stringify(report, null, 2));
    return report.ok ? 0 : 1;
  }
  // Which secrets signed, never a secret itself.
  if (options.secret !== undefined) io.out("Signed with the secret given by --secret.");
  else if (secrets.length === 1)
    io.out(`Signed with the current webhook secret of account "${account?.name}".`);
  else
    io.out(
      `Signed as the service signs now: with all ${secrets.length} live webhook secrets of account "${account?.name}", newest first.`,
    );
  // During a rotation: until when the older secrets still sign (the one that stops first).
  const overlapEnd = Math.min(
    ...signing.slice(1).map((entry) => entry.expiresAt ?? Number.POSITIVE_INFINITY),
  );
  const until = Number.isFinite(overlapEnd) ? untilText(overlapEnd, context) : undefined;
  if (until) io.out(`A secret rotation is under way: the older secret signs until ${until}.`);
  io.out(formatWebhookCheckReport(report));
  if (until && report.receiverSecret === "older")
    io.out(
      `The receiver is on the older secret: it verifies deliveries until ${until}, and none after. Give it the current secret before then.`,
    );
  else if (until && report.receiverSecret === "newest")
    io.out("The receiver is on the current secret: it keeps verifying when the rotation's overlap ends.");
  return report.ok ? 0 : 1;
}

/** A service time, and how far off it is, in real time too when the service clock runs faster. */
function untilText(at: number, context: AdminContext): string {
  const ahead = Math.max(0, at - context.clock.now());
  const scale = context.clock.scale;
  const real =
    scale === 1 ? "" : `, about ${roughDuration(ahead / scale)} of real time at GENVIDEO_TIME_SCALE=${scale}`;
  return `${isoTime(at)} (service time: in ${roughDuration(ahead)}${real})`;
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
