/**
 * A setting as data: the environment variable, its default, the parser that turns what the
 * operator wrote into a value, and what it does. The server README's "Settings" table is the
 * list of record; `settings-readme.test.ts` keeps the two the same.
 */
import type { Parser } from "./parsers.js";

export type Environment = Record<string, string | undefined>;

export interface Setting<T, D = T> {
  /** The environment variable. */
  name: string;
  /** Variables read, in this order, when `name` is unset (the AWS SDKs' own names, say). */
  aliases?: readonly string[];
  /** The value when the variable is unset or blank. */
  default: D;
  parse: Parser<T>;
  description: string;
  /** An empty value means unset, but a blank one is parsed (and refused): for secrets. */
  keepBlank?: boolean;
}

/** Declares a setting; the value it reads is `T`, or the default's type `D` when unset. */
export function setting<T, D = T>(definition: Setting<T, D>): Setting<T, D> {
  return definition;
}

/** The value of a setting: the first of its variables set (and not blank), parsed; else its default. */
export function readSetting<T, D>(env: Environment, definition: Setting<T, D>): T | D {
  for (const name of [definition.name, ...(definition.aliases ?? [])]) {
    const raw = env[name];
    if (raw === undefined || raw === "" || (!definition.keepBlank && raw.trim() === "")) continue;
    return definition.parse(raw, name);
  }
  return definition.default;
}

// biome-ignore lint/suspicious/noExplicitAny: a table holds settings of every value type
type AnySetting = Setting<any, any>;

/** The values a table of settings reads, by the table's keys. */
export type SettingValues<Table extends Record<string, AnySetting>> = {
  [Key in keyof Table]: Table[Key] extends Setting<infer T, infer D> ? T | D : never;
};

/** Reads every setting of a table, in the table's order (so the first bad one is the one named). */
export function readSettings<Table extends Record<string, AnySetting>>(
  env: Environment,
  table: Table,
): SettingValues<Table> {
  const values: Record<string, unknown> = {};
  for (const [key, definition] of Object.entries(table)) values[key] = readSetting(env, definition);
  return values as SettingValues<Table>;
}
