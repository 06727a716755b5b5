/** The CLI's usage text: `genvideo-server --help`. */
export const USAGE = `Usage: genvideo-server <command> [options]

Runs the genvideo reference server and administers its accounts, API keys and webhooks.

Commands:
  start [--role all|api|worker]          Start the HTTP API and/or the worker (Ctrl-C stops gracefully)
  accounts create <name> [--credits N]   Create an account (prints its webhook secret once)
  accounts list                          List accounts with their credits
  accounts show <name>                   Show one account, its keys and its ledger
  accounts credit <name> <N>             Add N credits to an account
  keys create [--account <name>] [--name <label>] [--expires 30d]
                                         Create an API key (default account: "default"); printed once;
                                         with --expires it is refused after that much service time
  keys list [--account <name>]           List API keys (id, name, prefix, state), never the keys themselves
  keys revoke <id>                       Revoke a key; refused from its next request on
  keys rotate <id> [--overlap 24h]       New key for the same account; the old one works for the overlap
  webhooks list --task <id>              Webhook deliveries of a task, with every attempt
  webhooks redeliver <task_id>           Send a task's notification again (a new delivery)
  webhooks rotate-secret [--account <name>] [--overlap 24h]
                                         New signing secret, printed once; the old one keeps signing
                                         for the overlap (both signatures sent meanwhile)
  webhooks check <url> [--secret whsec_...] [--task <id>] [--account <name>] [--json]
                                         Grade a webhook receiver with signed test deliveries (marked
                                         by a genvideo-webhook-check header); exits 1 if a case fails
  dashboard link [--account <name>]      A one-time sign-in link to the dashboard (15 minutes)
  conformance <base-url> --key <key> [--task <id>] [--create [--yes]] [--receiver-url <url>
              --receiver-port <n>] [--secret whsec_...] [--json]
                                         Check any deployment of the API against the contract, from
                                         outside; read-only unless --create (1 task, 1 credit); exits
                                         1 if a check fails, 2 if the deployment does not answer

Options:
  --port <n>, --host <addr>              Same as PORT and HOST (start only)
  --role <all|api|worker>                Same as GENVIDEO_ROLE (start only; api and worker need PostgreSQL)
  --database-url <url>, --data-dir <dir> Same as GENVIDEO_DATABASE_URL and GENVIDEO_DATA_DIR
  --json                                 Machine-readable output for list, show and check commands
  -h, --help                             Show this help

Environment:
  PORT (8787), HOST (127.0.0.1), GENVIDEO_DATABASE_URL (sqlite:./.genvideo/genvideo.db),
  GENVIDEO_DATA_DIR (./.genvideo), GENVIDEO_PUBLIC_URL (http://HOST:PORT),
  GENVIDEO_BOOTSTRAP_API_KEY, GENVIDEO_BOOTSTRAP_WEBHOOK_SECRET, GENVIDEO_TIME_SCALE (1),
  GENVIDEO_ALLOW_INSECURE_CALLBACKS (0), GENVIDEO_RATE_LIMITS (on | off | creates=N,reads=N),
  GENVIDEO_WORKERS (2), GENVIDEO_UNSAFE_WORDS (comma-separated), GENVIDEO_LOG_LEVEL (info),
  GENVIDEO_RENDERER (synthetic | fixture: one tiny fixed MP4, for load tests),
  GENVIDEO_ROLE (all | api | worker), GENVIDEO_PG_POOL_SIZE (10), GENVIDEO_PG_LISTEN (on),
  GENVIDEO_LEASE (10s: how long a dead worker's work waits before others take it),
  GENVIDEO_METRICS_PORT (none: /metrics on a port of its own), GENVIDEO_METRICS_HOST (127.0.0.1),
  OTEL_EXPORTER_OTLP_ENDPOINT (none: traces by OTLP/HTTP, with the other standard OTEL_* variables)
`;
