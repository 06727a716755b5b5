/**
 * The answers Node writes itself, before any handler runs, to a request it cannot read: a malformed
 * request line or header (400), headers over its 16 KB limit (431), a chunk extension too long (413),
 * a request that did not arrive in time (408). Node's own carry no `X-Content-Type-Options`; these
 * are the same answers with nosniff, as every other answer of the server has it.
 */
import type { Server } from "node:http";
import type { Socket } from "node:net";
import { NOSNIFF_HEADERS } from "@genvideo/engine";

/** Node's status for each parser error it names (node:_http_server); any other is a 400. */
const STATUS_LINES: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
  HPE_CHUNK_EXTENSIONS_OVERFLOW: "413 Payload Too Large",
  ERR_HTTP_REQUEST_TIMEOUT: "408 Request Timeout",
};

const EXTRA_HEADERS = Object.entries(NOSNIFF_HEADERS)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join("");

/** The raw answer to a request Node refused with `code`; the connection closes after it. */
function clientErrorAnswer(code: string | undefined): string {
  const statusLine = STATUS_LINES[code ?? ""] ?? "400 Bad Request";
  return `HTTP/1.1 ${statusLine}\r\nConnection: close\r\nContent-Length: 0\r\n${EXTRA_HEADERS}\r\n`;
}

/** Answers Node's `clientError`s with {@link clientErrorAnswer} instead of its own answer. */
export function answerClientErrors(server: Server): void {
  server.on("clientError", (error: NodeJS.ErrnoException, socket: Socket) => {
    // As Node does: nothing to say on a connection already answering or gone (ECONNRESET).
    if (socket.writable && socket.bytesWritten === 0) socket.end(clientErrorAnswer(error.code));
    socket.destroySoon();
  });
}
