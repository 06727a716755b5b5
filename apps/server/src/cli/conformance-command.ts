/**
 * `conformance <base-url>`: checks any deployment of the API (this server, a staging service, the
 * provider's sandbox) against the contract, with the SDK's `checkDeployment`. Read-only unless
 * `--create`, which spends one credit and so asks first: `--yes` when no one is at a terminal.
 * Exit 0 when no check fails, 1 when one does, 2 on a usage error or a deployment that does not
 * answer at all.
 */
import {
  type CheckDeploymentOptions,
  checkDeployment,
  DeploymentUnreachableError,
  formatConformanceReport,
} from "@genvideo/sdk/conformance";
import { type CliIo, type CliOptions, UsageError } from "./command-line.js";
import { type LocalWebhookInbox, startWebhookInbox } from "./webhook-inbox.js";

const usage =
  "conformance <base-url> --key <key> [--task <id>] [--create [--yes]] [--receiver-url <url>] [--receiver-port <n>] [--secret whsec_...] [--json]";
const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const secretPattern = /^whsec_[A-Za-z0-9+/]+={0,2}$/;

export async function runConformance(rest: string[], options: CliOptions, io: CliIo): Promise<number> {
  if (rest.length !== 1 || !rest[0]) throw new UsageError(`usage: ${usage}`);
  const baseUrl = httpUrl(rest[0], "the deployment's base URL, like https://api.genvideo.example");
  // From the environment too, so that a key need not sit in shell history or a process list.
  const apiKey = options.key ?? io.env.GENVIDEO_API_KEY;
  if (!apiKey) throw new UsageError("give an API key of the deployment: --key <key> (or GENVIDEO_API_KEY)");
  if (options.task !== undefined && !uuidPattern.test(options.task))
    throw new UsageError(`--task takes a task id (a UUID), got "${options.task}"`);
  if (options.secret !== undefined && !secretPattern.test(options.secret))
    throw new UsageError("--secret must be whsec_ followed by base64, as the account's secret is");
  const onlyWithCreate = (["yes", "receiver-url", "receiver-port", "secret"] as const).filter(
    (name) => options[name] !== undefined,
  );
  if (!options.create && onlyWithCreate.length > 0)
    throw new UsageError(`--${onlyWithCreate[0]} goes with --create`);
  const receiverUrl =
    options["receiver-url"] === undefined
      ? undefined
      : httpUrl(options["receiver-url"], "a URL the deployment can reach, forwarded to --receiver-port");
  const receiverPort = port(options["receiver-port"]);
  if (receiverUrl && receiverPort === 0)
    throw new UsageError("--receiver-url needs --receiver-port: the local port its traffic is forwarded to");

  if (options.create && !(await confirmedCreate(baseUrl, options, io))) return 2;

  let inbox: LocalWebhookInbox | undefined;
  try {
    const settings: CheckDeploymentOptions = {
      apiKey,
      ...(options.task !== undefined ? { taskId: options.task } : {}),
    };
    if (options.create) {
      inbox = await startWebhookInbox(receiverPort, receiverUrl);
      io.err(
        `Webhook receiver listening on ${inbox.localUrl}${receiverUrl ? `, reached as ${receiverUrl}` : ""}.`,
      );
      settings.create = {
        webhooks: inbox,
        ...(options.secret !== undefined ? { webhookSecret: options.secret } : {}),
      };
    }
    const report = await checkDeployment(baseUrl, settings);
    io.out(options.json ? JSON.stringify(report, null, 2) : formatConformanceReport(report));
    if (!options.json && options.create && options.secret === undefined)
      io.out("Webhook signatures were checked for their form only: give --secret to verify them.");
    return report.ok ? 0 : 1;
  } catch (error) {
    if (error instanceof DeploymentUnreachableError) {
      io.err(`genvideo-server: ${error.message}`);
      return 2;
    }
    throw error;
  } finally {
    await inbox?.close();
  }
}

/** `--create` spends a credit: `--yes`, or a yes typed at the terminal. */
async function confirmedCreate(baseUrl: string, options: CliOptions, io: CliIo): Promise<boolean> {
  io.err(
    `--create makes 1 text-to-video task on gen-3-fast at ${baseUrl}: it costs the key's account 1 credit.`,
  );
  if (options.yes) return true;
  if (!io.ask) {
    io.err(
      "genvideo-server: stdin is not a terminal, so nothing can be confirmed: add --yes to spend the credit.",
    );
    return false;
  }
  const answer = await io.ask("Go ahead? [y/N] ");
  if (/^y(es)?$/i.test(answer.trim())) return true;
  io.err("Nothing was created.");
  return false;
}

function httpUrl(text: string, what: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`"${text}" is not a URL; give ${what}`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:")
    throw new UsageError(`"${text}" is not an http: or https: URL; give ${what}`);
  return url.href;
}

function port(text: string | undefined): number {
  if (text === undefined) return 0;
  const value = Number(text);
  if (!/^\d+$/.test(text) || value < 1 || value > 65535)
    throw new UsageError(`--receiver-port takes a port number (1 to 65535), got "${text}"`);
  return value;
}
