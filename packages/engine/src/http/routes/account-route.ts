import type { Handler } from "hono";
import type { EngineEnv, HttpServices } from "../engine-env.js";

/** `GET /api/gen/account` (an extension): the calling key's account and its balance, read fresh. */
export function accountRoute(services: HttpServices): Handler<EngineEnv> {
  return async (c) => {
    const account =
      (await services.store.transaction((tx) => tx.getAccount(c.var.caller.account.id))) ??
      c.var.caller.account;
    return c.json({ account_id: account.id, name: account.name, credits: account.credits }, 200);
  };
}
