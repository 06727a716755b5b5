/**
 * How the store's queries reach a database. Kysely builds and compiles them
 * (so one set of queries serves SQLite and PostgreSQL); an executor runs the
 * compiled SQL. On SQLite the executor calls node:sqlite directly: Kysely's
 * own transaction and execution layers cost about six times the query itself.
 */
import type { CompiledQuery } from "kysely";

export interface SqlExecutor {
  /** Rows of a SELECT or of a statement with RETURNING. */
  rows<Row>(query: CompiledQuery): Promise<Row[]>;
  /** The first row of a SELECT, or undefined: the lookups by key of every request. */
  first<Row>(query: CompiledQuery): Promise<Row | undefined>;
  /** Rows changed by an INSERT, UPDATE or DELETE. */
  changes(query: CompiledQuery): Promise<number>;
}

const SLOT = "\u0000genvideo-slot:";

/** A placeholder for the `index`th value of a cached query (see `CompiledQueries`). */
export function slot(index: number): string {
  return `${SLOT}${index}`;
}

/**
 * Compiles a query of fixed shape once and fills in its values per call: the
 * hot paths (auth, status reads, creates) skip Kysely's builder entirely.
 * Build the query with `slot(i)` where the i-th value goes.
 */
export class CompiledQueries {
  readonly #cache = new Map<string, CachedQuery>();

  get(name: string, build: () => { compile(): CompiledQuery }, values: readonly unknown[]): PreparedQuery {
    let cached = this.#cache.get(name);
    if (!cached) {
      const compiled: PreparedQuery = { ...build().compile(), preparedName: `genvideo_${this.#cache.size}` };
      cached = { compiled, slots: compiled.parameters.map(slotIndexOf) };
      this.#cache.set(name, cached);
    }
    const { compiled, slots } = cached;
    // Where each parameter's value comes from is found once, at compile time: finding the slot
    // marker in every parameter on every call cost 2 µs for a task's INSERT (23 values), 0.13 now.
    const parameters = new Array<unknown>(slots.length);
    for (let index = 0; index < slots.length; index++) {
      const slotIndex = slots[index]!;
      parameters[index] = slotIndex === -1 ? compiled.parameters[index] : values[slotIndex];
    }
    return { ...compiled, parameters };
  }
}

/** A compiled query and, for each of its parameters, the index of the value it takes (-1: its own). */
interface CachedQuery {
  compiled: PreparedQuery;
  slots: number[];
}

function slotIndexOf(parameter: unknown): number {
  return typeof parameter === "string" && parameter.startsWith(SLOT)
    ? Number(parameter.slice(SLOT.length))
    : -1;
}

/**
 * A query of fixed shape with a name of its own, under which PostgreSQL
 * keeps it prepared per connection: parsed and planned once, then only bound
 * and run (SQLite keeps its prepared statements by SQL text).
 */
export type PreparedQuery = CompiledQuery & { readonly preparedName?: string };
