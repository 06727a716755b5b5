import { describe, expect, it } from "vitest";
import { cliInvocation } from "./invocation.js";

describe("cliInvocation", () => {
  it("names the command the way the CLI was run", () => {
    expect(cliInvocation({ npm_config_user_agent: "pnpm/12.21.0 npm/? node/v24.11.0 linux x64" })).toBe(
      "pnpm genvideo-server",
    );
    expect(
      cliInvocation({ npm_config_user_agent: "npm/11.6.0 node/v24.11.0 linux x64 workspaces/false" }),
    ).toBe("npx @genvideo/server");
    expect(cliInvocation({ npm_config_user_agent: "yarn/4.9.0 npm/? node/v24.11.0 linux x64" })).toBe(
      "yarn genvideo-server",
    );
    expect(cliInvocation({ npm_config_user_agent: "bun/1.3.0 npm/? node/v24.3.0 linux x64" })).toBe(
      "bunx genvideo-server",
    );
    expect(cliInvocation({})).toBe("genvideo-server");
  });
});
