// Each rule of .dependency-cruiser.cjs (what `pnpm lint` runs) broken once on purpose in a tree
// laid out like the repository, and one import each rule allows: a rule that stops matching, or
// starts matching what it should not, fails here.
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fixtureTree, REPO_ROOT, run } from "./support.ts";

const FIXTURE = {
  // A stand-in for zod, so that the schema's imports of it resolve as in the repository.
  "node_modules/zod/package.json": JSON.stringify({ name: "zod", exports: { "./mini": "./mini/index.js" } }),
  "node_modules/zod/mini/index.js": "export const z = {};\n",

  "packages/engine/src/clock.ts":
    'import { readFileSync } from "node:fs";\nexport const read = readFileSync;\n',
  "packages/engine/src/http/app.ts":
    'import { createTask } from "../tasks/create-task.js";\nexport const app = createTask;\n',
  "packages/engine/src/http/status.ts": "export const status = 402;\n",
  "packages/engine/src/tasks/create-task.ts": "export const createTask = 1;\n",
  "packages/engine/src/credits/ledger.ts":
    'import { status } from "../http/status.js";\nexport const ledger = status;\n',
  "packages/engine/src/admin/accounts.ts":
    'import { status } from "../http/status.js";\nexport const accounts = status;\n',
  "packages/engine/src/leases/lease-renewal.ts":
    'import { status } from "../http/status.js";\nexport const renewal = status;\n',
  "packages/engine/src/video/video-url.ts":
    'import { status } from "../http/status.js";\nexport const videoUrl = status;\n',
  "packages/engine/src/engine.test.ts":
    'import { readFileSync } from "node:fs";\nexport const read = readFileSync;\n',

  "packages/sdk/src/client.ts":
    'import { app } from "../../engine/src/http/app.js";\nexport const client = app;\n',

  "apps/server/src/server.ts":
    'import { receiver } from "../test/support/receiver.js";\nexport const server = receiver;\n',
  "apps/server/src/cli.ts":
    'import { startServer } from "./testing/index.js";\nexport const cli = startServer;\n',
  "apps/server/src/testing/index.ts":
    'import { server } from "../server.js";\nexport const startServer = server;\n',
  "apps/server/test/support/receiver.ts": "export const receiver = 1;\n",

  // The server's folders: composition/ and cli/ assemble the parts, which never import them.
  "apps/server/src/composition/settings.ts": "export const settings = 1;\n",
  "apps/server/src/composition/node-server.ts":
    'import { dashboard } from "../dashboard/dashboard-app.js";\nimport { queries } from "../store/task-queries.js";\nexport const nodeServer = [dashboard, queries];\n',
  "apps/server/src/cli/run-cli.ts":
    'import { nodeServer } from "../composition/node-server.js";\nimport { dashboard } from "../dashboard/dashboard-app.js";\nexport const runCli = [nodeServer, dashboard];\n',
  "apps/server/src/cli/help.ts": "export const help = 1;\n",
  "apps/server/src/store/task-queries.ts":
    'import { settings } from "../composition/settings.js";\nexport const queries = settings;\n',
  "apps/server/src/webhooks/sender.ts":
    'import { help } from "../cli/help.js";\nimport { layout } from "../dashboard/layout.js";\nexport const sender = [help, layout];\n',
  "apps/server/src/dashboard/dashboard-app.ts":
    'import { logger } from "../logging/logger.js";\nimport { layout } from "./layout.js";\nexport const dashboard = [logger, layout];\n',
  "apps/server/src/dashboard/layout.ts": "export const layout = 1;\n",
  "apps/server/src/dashboard/assets.ts": "export const favicon = 1;\n",
  "apps/server/src/http/docs-page.ts":
    'import { favicon } from "../dashboard/assets.js";\nexport const docsPage = favicon;\n',
  "apps/server/src/logging/logger.ts":
    'import { config } from "../config.js";\nexport const logger = config;\n',
  "apps/server/src/logging/log-level.ts": "export const levels = [];\n",
  "apps/server/src/config.ts":
    'import { levels } from "./logging/log-level.js";\nexport const config = levels;\n',

  "packages/schema/src/limits.ts": 'import { z } from "zod/mini";\nexport const limit = z;\n',
  "packages/schema/src/errors.ts": 'import { kind } from "./wire.js";\nexport const error = kind;\n',
  "packages/schema/src/wire.ts": 'import { request } from "./request.js";\nexport const kind = request;\n',
  "packages/schema/src/request.ts":
    'import { z } from "zod/mini";\nimport { sep } from "node:path";\nexport const request = [z, sep];\n',

  "packages/msw/src/handlers.ts": 'import { mock } from "./mock.js";\nexport const handlers = mock;\n',
  "packages/msw/src/mock.ts":
    'import { handlers } from "./handlers.js";\nexport const mock = () => handlers;\n',
};

interface Violation {
  rule: string;
  from: string;
  to: string;
}

describe("dependency-cruiser rules (pnpm lint)", () => {
  let violations: Violation[];
  let remove: () => void;

  beforeAll(async () => {
    const tree = fixtureTree(FIXTURE);
    remove = tree.remove;
    const config = join(REPO_ROOT, ".dependency-cruiser.cjs");
    const result = await run(
      "depcruise",
      ["packages", "apps", "--config", config, "--output-type", "json"],
      tree.root,
    );
    const report = JSON.parse(result.stdout) as {
      summary: { violations: { from: string; to: string; rule: { name: string } }[] };
    };
    violations = report.summary.violations.map(({ rule, from, to }) => ({ rule: rule.name, from, to }));
  });
  afterAll(() => remove());

  it.each<[string, string, RegExp]>([
    ["engine-no-node", "packages/engine/src/clock.ts", /^fs$/],
    [
      "engine-domain-not-http",
      "packages/engine/src/credits/ledger.ts",
      /^packages\/engine\/src\/http\/status\.ts$/,
    ],
    [
      "engine-domain-not-http",
      "packages/engine/src/admin/accounts.ts",
      /^packages\/engine\/src\/http\/status\.ts$/,
    ],
    [
      "engine-domain-not-http",
      "packages/engine/src/leases/lease-renewal.ts",
      /^packages\/engine\/src\/http\/status\.ts$/,
    ],
    [
      "engine-domain-not-http",
      "packages/engine/src/video/video-url.ts",
      /^packages\/engine\/src\/http\/status\.ts$/,
    ],
    [
      "server-composition-on-top",
      "apps/server/src/store/task-queries.ts",
      /^apps\/server\/src\/composition\/settings\.ts$/,
    ],
    ["server-composition-on-top", "apps/server/src/webhooks/sender.ts", /^apps\/server\/src\/cli\/help\.ts$/],
    [
      "server-dashboard-mounted-not-imported",
      "apps/server/src/webhooks/sender.ts",
      /^apps\/server\/src\/dashboard\/layout\.ts$/,
    ],
    [
      "server-dashboard-mounted-not-imported",
      "apps/server/src/http/docs-page.ts",
      /^apps\/server\/src\/dashboard\/assets\.ts$/,
    ],
    ["server-logging-below-config", "apps/server/src/logging/logger.ts", /^apps\/server\/src\/config\.ts$/],
    ["sdk-not-engine", "packages/sdk/src/client.ts", /^packages\/engine\/src\/http\/app\.ts$/],
    [
      "shipped-code-not-test-support",
      "apps/server/src/server.ts",
      /^apps\/server\/test\/support\/receiver\.ts$/,
    ],
    ["shipped-code-not-test-support", "apps/server/src/cli.ts", /^apps\/server\/src\/testing\/index\.ts$/],
    ["schema-only-zod", "packages/schema/src/request.ts", /^path$/],
    ["schema-constants-no-zod", "packages/schema/src/limits.ts", /node_modules\/zod\/mini\/index\.js$/],
    [
      "schema-client-modules-stay-light",
      "packages/schema/src/errors.ts",
      /^packages\/schema\/src\/request\.ts$/,
    ],
    ["no-circular", "packages/msw/src/handlers.ts", /^packages\/msw\/src\/mock\.ts$/],
  ])("%s reports %s", (rule, from, to) => {
    expect(violations.filter((v) => v.rule === rule && v.from === from && to.test(v.to))).toHaveLength(1);
  });

  it("reports nothing else: what the rules allow stays allowed", () => {
    // http/ may use the domain, tests may use node:, a testing entry its own package, the schema zod;
    // composition/ and cli/ may use every part and the dashboard, config.ts may use logging/.
    const expected = new Set([
      "engine-no-node packages/engine/src/clock.ts",
      "engine-domain-not-http packages/engine/src/credits/ledger.ts",
      "engine-domain-not-http packages/engine/src/admin/accounts.ts",
      "engine-domain-not-http packages/engine/src/leases/lease-renewal.ts",
      "engine-domain-not-http packages/engine/src/video/video-url.ts",
      "server-composition-on-top apps/server/src/store/task-queries.ts",
      "server-composition-on-top apps/server/src/webhooks/sender.ts",
      "server-dashboard-mounted-not-imported apps/server/src/webhooks/sender.ts",
      "server-dashboard-mounted-not-imported apps/server/src/http/docs-page.ts",
      "server-logging-below-config apps/server/src/logging/logger.ts",
      "sdk-not-engine packages/sdk/src/client.ts",
      "shipped-code-not-test-support apps/server/src/server.ts",
      "shipped-code-not-test-support apps/server/src/cli.ts",
      "schema-only-zod packages/schema/src/request.ts",
      "schema-constants-no-zod packages/schema/src/limits.ts",
      "schema-client-modules-stay-light packages/schema/src/errors.ts",
      "no-circular packages/msw/src/handlers.ts",
    ]);
    expect(new Set(violations.map((v) => `${v.rule} ${v.from}`))).toEqual(expected);
  });
});
