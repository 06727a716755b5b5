import type { RouteHandler } from "../engine-env.js";
import { jsonResponse } from "../json-response.js";

/** `GET /api/gen/account` (an extension): the calling key's account and its balance, read fresh. */
export function accountRoute(): RouteHandler {
  return async (c) => {
    const accountId = c.get("caller").accountId;
    const account = await c.get("store").transaction((tx) => tx.getAccount(accountId), { readOnly: true });
    // A key's account always exists (accounts are never deleted); a store that lost it is broken.
    if (!account) throw new Error(`account ${accountId} of an authenticated key is missing`);
    return jsonResponse(c, { account_id: account.id, name: account.name, credits: account.credits }, 200);
  };
}
