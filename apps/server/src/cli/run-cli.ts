/**
 * `genvideo-server <command>`: argument parsing and dispatch. Usage mistakes
 * and bad configuration exit with 2 and one line naming the problem; an
 * operator mistake (unknown account, revoked key) exits with 1.
 */
import { parseArgs } from "node:util";
import { AdminError } from "@genvideo/engine";
import { ConfigError, loadConfig } from "../config.js";
import {
  runAccountsCommand,
  runDashboardCommand,
  runKeysCommand,
  runWebhooksCommand,
} from "./admin-commands.js";
import { withAdminContext } from "./admin-context.js";
import { type CliIo, type CliOptions, CommandError, OPTIONS, UsageError } from "./command-line.js";
import { USAGE } from "./help.js";
import { cliInvocation } from "./invocation.js";
import { nearestCommand } from "./nearest-command.js";

const COMMANDS = ["start", "accounts", "keys", "webhooks", "dashboard", "conformance", "help"] as const;

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  let parsed: { values: CliOptions; positionals: string[] };
  try {
    const problem = optionProblem(argv);
    if (problem) throw new UsageError(problem);
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    io.err(`genvideo-server: ${(error as Error).message}`);
    io.err(`Run ${cliInvocation(io.env)} --help for usage.`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  if (values.help || command === "help" || command === undefined) {
    io.out(USAGE);
    return command === undefined && !values.help ? 2 : 0;
  }

  try {
    // It checks another deployment from outside: this server's configuration plays no part.
    if (command === "conformance")
      return await (await import("./conformance-command.js")).runConformance(rest, values, io);
    const config = loadConfig(environmentWithFlags(io.env, values));
    switch (command) {
      case "start":
        if (rest.length > 0) throw new UsageError(`start takes no arguments, got "${rest.join(" ")}"`);
        // Loaded only for `start`: admin commands skip the renderer, sharp and the HTTP stack.
        return await (await import("./start-command.js")).runStartCommand(config, io);
      case "accounts":
        return await withAdminContext(config, (context) => runAccountsCommand(rest, values, context, io));
      case "keys":
        return await withAdminContext(config, (context) => runKeysCommand(rest, values, context, io));
      case "webhooks":
        return await withAdminContext(config, (context) => runWebhooksCommand(rest, values, context, io));
      case "dashboard":
        return await withAdminContext(config, (context) => runDashboardCommand(rest, values, context, io));
      default: {
        const meant = nearestCommand(command, COMMANDS);
        throw new UsageError(
          `unknown command "${command}"${meant ? `; did you mean: ${[cliInvocation(io.env), meant, ...rest].join(" ")}` : ""}`,
        );
      }
    }
  } catch (error) {
    if (error instanceof ConfigError) {
      io.err(`genvideo-server: ${error.message}`);
      return 2;
    }
    if (error instanceof UsageError) {
      io.err(`genvideo-server: ${error.message}`);
      io.err(`Run ${cliInvocation(io.env)} --help for usage.`);
      return 2;
    }
    if (error instanceof CommandError || AdminError.isInstance(error)) {
      io.err(`genvideo-server: ${error.message}`);
      return 1;
    }
    throw error;
  }
}

const OPTION_NAMES = Object.keys(OPTIONS);

/**
 * What is wrong with the options given, in the CLI's words: an unknown one with the option it most
 * likely meant (`--expire` → `--expires`), a value missing or one given to a switch. Node's own
 * parser says this too, but in its terms ("place it after '--'").
 */
function optionProblem(argv: string[]): string | undefined {
  const { tokens } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: false,
    tokens: true,
  });
  for (const token of tokens) {
    if (token.kind !== "option") continue;
    const option = (OPTIONS as Record<string, { type: string }>)[token.name];
    if (!option) {
      const meant = nearestCommand(token.name, OPTION_NAMES);
      return `unknown option ${token.rawName}${meant ? `; did you mean --${meant}?` : ""}`;
    }
    if (option.type === "string" && token.value === undefined)
      return `${token.rawName} needs a value (${token.rawName} <value>)`;
    if (option.type === "boolean" && token.inlineValue) return `${token.rawName} takes no value`;
  }
  return undefined;
}

/** Flags mirror environment variables and win over them. */
function environmentWithFlags(env: CliIo["env"], values: CliOptions): CliIo["env"] {
  return {
    ...env,
    ...(values.port !== undefined ? { PORT: values.port } : {}),
    ...(values.host !== undefined ? { HOST: values.host } : {}),
    ...(values.role !== undefined ? { GENVIDEO_ROLE: values.role } : {}),
    ...(values["database-url"] !== undefined ? { GENVIDEO_DATABASE_URL: values["database-url"] } : {}),
    ...(values["data-dir"] !== undefined ? { GENVIDEO_DATA_DIR: values["data-dir"] } : {}),
  };
}
