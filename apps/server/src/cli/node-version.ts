/**
 * The Node.js the server needs, checked by the CLI's entry before anything else loads: the server
 * imports the built-in `node:sqlite`, which an older Node cannot even resolve, so without this check
 * `genvideo-server --help` on Node 20 ends in ERR_UNKNOWN_BUILTIN_MODULE before any code runs.
 * This module imports nothing, so that it loads on any Node.
 */

/** `node:sqlite` works without a flag from 22.13 on the 22 line and from 23.4. */
const NEEDED = "22.13";

/** What is wrong with running on Node `version` (`process.versions.node`), or undefined when nothing is. */
export function nodeVersionProblem(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split(".").map(Number);
  const supported = major > 23 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
  if (supported) return undefined;
  return `needs Node.js ${NEEDED} or later (it uses the built-in node:sqlite); this is Node.js v${version}. Install Node.js 24 LTS from https://nodejs.org, or with npm: npm install --global --prefix ~/.local node@24 (then put ~/.local/bin first on PATH).`;
}
