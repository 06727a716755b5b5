/**
 * What a packed package must hold for a customer: everything its manifest, code, declarations,
 * maps and README name is inside the tarball, and nothing of the workspace's own tooling is.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, posix, relative } from "node:path";

/** Files that only build or test a package: a tarball carrying one ships the workspace's plumbing. */
const WORKSPACE_ONLY = [
  /(^|\/)[^/]+\.test(-d)?\.ts$/,
  /(^|\/)test\//,
  /(^|\/)(tsup|vitest|vite)\.config\.[cm]?ts$/,
  /(^|\/)tsconfig[^/]*\.json$/,
  /(^|\/)\.turbo\//,
];

/** Repository folders a shipped text may name as a path: each must then be in the tarball. */
const PATH_IN_TEXT =
  /(?<![\w@/.-])((?:\.{1,2}\/|(?:src|test|docs|dist|apps|packages|scripts|bench)\/)[\w./-]*[\w-]\.(?:ts|mts|js|mjs|cjs|json|md))\b/g;
const MARKDOWN_LINK = /\]\(([^)\s]+)\)/g;
const IMPORT_SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["'](\.{1,2}\/[^"']+)["']/g;
const SOURCE_MAPPING_URL = /\/\/# sourceMappingURL=(\S+)/;

export function listFiles(root: string, directory = root): string[] {
  return readdirSync(directory).flatMap((entry) => {
    const path = join(directory, entry);
    return statSync(path).isDirectory()
      ? listFiles(root, path)
      : [relative(root, path).split("\\").join("/")];
  });
}

function exportTargets(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (value && typeof value === "object") return Object.values(value).flatMap(exportTargets);
  return [];
}

/**
 * Problems of an unpacked package (`root` holds its package.json); an empty list when there are none.
 * Shipped code may cite files of the repository its `repository` field names (a guide such as
 * `docs/api.md`, the source a from-source mode runs, a benchmark): each must exist there, in
 * `repository.root` or `repository.packageDir`, and none may be a test or a build config. A
 * README's links must work on npm, so they are absolute or inside the tarball.
 */
export function checkUnpackedPackage(
  root: string,
  repository?: { root: string; packageDir: string },
): string[] {
  const files = new Set(listFiles(root));
  const problems: string[] = [];
  const exact = (path: string) => files.has(posix.normalize(path).replace(/^\.\//, ""));
  // Sources and declarations name a module's `.js`; its types or source may stand beside it instead.
  const has = (path: string) =>
    exact(path) || exact(path.replace(/\.js$/, ".d.ts")) || exact(path.replace(/\.js$/, ".ts"));

  for (const required of ["package.json", "README.md", "LICENSE"]) {
    if (!files.has(required)) problems.push(`missing ${required}`);
  }
  for (const file of files) {
    if (WORKSPACE_ONLY.some((pattern) => pattern.test(file))) problems.push(`ships ${file}`);
  }

  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Record<string, unknown>;
  const named = [
    ...exportTargets(manifest.exports),
    ...exportTargets(manifest.bin),
    ...exportTargets(manifest.main),
    ...exportTargets(manifest.types),
  ];
  for (const target of named) {
    if (!target.includes("*") && !has(target))
      problems.push(`package.json names ${target}, not in the tarball`);
  }
  for (const [name, range] of Object.entries({
    ...(manifest.dependencies as Record<string, string>),
    ...(manifest.peerDependencies as Record<string, string>),
  })) {
    if (/^(workspace|link|file):/.test(range)) problems.push(`dependency ${name} is "${range}"`);
  }

  for (const file of files) {
    if (!/\.(m?js|d\.m?ts|md|ts)$/.test(file) || file.endsWith(".map")) continue;
    const text = readFileSync(join(root, file), "utf8");
    // What a reader can follow anyway: absolute links, and the labels a bundler writes above each
    // module it inlined (`// src/config.ts`), which name a source rather than point at a file.
    const prose = text
      .replace(/\[[^\]]*\]\(https?:[^)]*\)/g, "")
      .replace(/https?:\/\/\S+/g, "")
      .replace(/^\/\/ [\w./-]+$/gm, "");
    const base = posix.dirname(file);
    const references = new Set<string>();
    for (const [, specifier] of text.matchAll(IMPORT_SPECIFIER)) {
      const resolved = posix.join(base, specifier as string);
      if (!(file.endsWith(".ts") ? has(resolved) : exact(resolved))) {
        problems.push(`${file} imports ${specifier}, not in the tarball`);
      }
    }
    for (const [, path] of prose.matchAll(PATH_IN_TEXT)) {
      if (!(path as string).startsWith(".") || !text.includes(`"${path}"`)) references.add(path as string);
    }
    if (file.endsWith(".md")) {
      for (const [, link] of text.matchAll(MARKDOWN_LINK)) {
        if (!/^(https?:|mailto:|#)/.test(link as string))
          references.add((link as string).split("#")[0] as string);
      }
    }
    const isCode = !file.endsWith(".md");
    for (const reference of references) {
      if (!reference || has(posix.join(base, reference)) || has(reference)) continue;
      const citable = isCode && repository && !WORKSPACE_ONLY.some((pattern) => pattern.test(reference));
      if (
        citable &&
        [repository.root, repository.packageDir].some((dir) => existsSync(join(dir, reference)))
      ) {
        continue;
      }
      problems.push(`${file} names ${reference}, not in the tarball`);
    }
    const mapUrl = SOURCE_MAPPING_URL.exec(text)?.[1];
    if (mapUrl && !mapUrl.startsWith("data:")) {
      const mapPath = posix.join(base, mapUrl);
      if (!has(mapPath)) {
        problems.push(`${file} names its map ${mapUrl}, not in the tarball`);
        continue;
      }
      const map = JSON.parse(readFileSync(join(root, mapPath), "utf8")) as {
        sources: string[];
        sourcesContent?: (string | null)[];
      };
      map.sources.forEach((source, index) => {
        if (typeof map.sourcesContent?.[index] === "string") return;
        if (!has(posix.join(posix.dirname(mapPath), source))) {
          problems.push(`${mapPath} points at ${source}, not in the tarball and not embedded`);
        }
      });
    }
  }
  return problems;
}

/** Packed size, unpacked size and file count of an unpacked tarball, for the size report. */
export function tarballFigures(
  tarball: string,
  root: string,
): { packed: number; unpacked: number; files: number } {
  const files = listFiles(root);
  const unpacked = files.reduce((sum, file) => sum + statSync(join(root, file)).size, 0);
  return { packed: statSync(tarball).size, unpacked, files: files.length };
}
