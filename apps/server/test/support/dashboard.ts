/** Dashboard helpers for the server's tests: sign-in links, sessions, form posts. */
import { request } from "node:http";
import type { RunningServer } from "../../src/testing/reference-server.js";

/** The sign-in link a first start or `dashboard link` printed, on a line of its own. */
export function printedSignInLink(output: string): string {
  const match = /^(http\S+\/dashboard\/sign-in\?token=[A-Za-z0-9_-]+)$/m.exec(output);
  if (!match) throw new Error(`no sign-in link in:\n${output}`);
  return match[1]!;
}

/** The link's path and query on `server` (the printed origin may be another name of it). */
export function onServer(server: RunningServer, link: string): string {
  const url = new URL(link);
  return new URL(url.pathname + url.search, server.url).href;
}

/** Uses a sign-in link the way its page's form does; returns the response. */
export function postSignIn(server: RunningServer, link: string): Promise<Response> {
  const token = new URL(link).searchParams.get("token") ?? "";
  return fetch(new URL("/dashboard/sign-in", server.url), {
    method: "POST",
    redirect: "manual",
    headers: { origin: new URL(server.url).origin, "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ token }),
  });
}

/** `name=value` of the session cookie a sign-in set. */
export function sessionCookie(response: Response): string {
  const header = response.headers.get("set-cookie") ?? "";
  const match = /^([^=;]+=[^;]+)/.exec(header);
  if (!match) throw new Error(`no cookie set: ${header}`);
  return match[1]!;
}

/** The CSRF token a page carries in its forms. */
export function csrfTokenIn(page: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(page);
  if (!match) throw new Error("no CSRF field in the page");
  return match[1]!;
}

/** A raw GET with any Host header (fetch will not send a made-up one). */
export function getWithHost(
  server: RunningServer,
  path: string,
  host: string,
): Promise<{ status: number; body: string }> {
  const url = new URL(server.url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: url.hostname, port: url.port, path, method: "GET", headers: { host } },
      (response) => {
        let body = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/**
 * Follows a form's answer as a browser does: a 303 (post/redirect/get) is fetched at its Location
 * with the session cookie and the one-time flash cookie it set; any other answer is returned as is.
 */
export async function afterRedirect(
  server: RunningServer,
  response: Response,
  cookie: string,
): Promise<Response> {
  if (response.status !== 303) return response;
  const flash = /^((?:__Host-)?genvideo_flash=[^;]+)/.exec(response.headers.get("set-cookie") ?? "")?.[1];
  const location = new URL(response.headers.get("location") ?? "", server.url);
  return fetch(location, { headers: { cookie: flash ? `${cookie}; ${flash}` : cookie }, redirect: "manual" });
}
