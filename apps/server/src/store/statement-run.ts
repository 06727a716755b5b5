/**
 * One statement run on a pg connection: what pg's own `Query` does for a
 * statement with values (the extended protocol: Parse once per connection for
 * a named statement, then Bind, Execute, Sync), as a `Submittable`, the
 * extension point of pg that pg-cursor is built on. It leaves out two costs
 * pg's `Query` pays on every call, which together were about a tenth of a
 * status read's CPU on PostgreSQL (15 µs of 137 in a profile):
 *
 * - It asks PostgreSQL to describe the result (Describe), then builds the
 *   row template and looks up a parser for each column from that description:
 *   9 µs for a status read's 13 columns, measured. A named statement's columns
 *   cannot change while it stays prepared (PostgreSQL refuses to run one whose
 *   result type changed, "cached plan must not change result type"), so they
 *   are described at its first run in the process and kept (`RowShapes`).
 * - It copies its configuration through property descriptors: 4 µs a query.
 *
 * It shares pg's record of what each connection has prepared, so the two can
 * run on the same connection.
 */
import type { Connection, FieldDef } from "pg";

/** How a statement's rows are made: its columns' names and parsers, and an empty row to copy. */
interface RowShape {
  names: string[];
  parsers: ((text: string) => unknown)[];
  template: Record<string, null>;
}

/** What pg keeps on a connection of the statements prepared on it; its types leave it out. */
interface PreparedStatementsOf {
  parsedStatements: Record<string, string | undefined>;
  submittedNamedStatements: Record<string, string | undefined>;
}

/** The columns of each named statement this process has run, learnt from its first run's description. */
export class RowShapes {
  readonly #shapes = new Map<string, RowShape>();
  readonly #parserOf: (oid: number) => (text: string) => unknown;

  /** `parserOf`: the parser of a column of this type (text format), as the pool's type parsers say. */
  constructor(parserOf: (oid: number) => (text: string) => unknown) {
    this.#parserOf = parserOf;
  }

  get(name: string | undefined): RowShape | undefined {
    return name === undefined ? undefined : this.#shapes.get(name);
  }

  /** The shape of rows described by `fields`, kept under `name` for the statement's next runs. */
  learn(name: string | undefined, fields: readonly FieldDef[]): RowShape {
    const template: Record<string, null> = {};
    for (const field of fields) template[field.name] = null;
    const shape: RowShape = {
      names: fields.map((field) => field.name),
      parsers: fields.map((field) => this.#parserOf(field.dataTypeID)),
      template,
    };
    if (name !== undefined) this.#shapes.set(name, shape);
    return shape;
  }
}

/** A statement's outcome: its rows, and how many it changed (the command tag's count). */
export interface StatementResult<Row> {
  rows: Row[];
  rowCount: number;
}

/** A command tag's row count: its last number ("INSERT 0 3", "UPDATE 3", "SELECT 3"); 0 without one. */
const ROW_COUNT = /(\d+)$/;

/**
 * Runs `text` (prepared as `name` when given) with `values` on `client`'s connection; its rows, each
 * made from the shape `shapes` keep for `name`. `values` go to PostgreSQL as text, or null.
 */
export function runStatement<Row>(
  client: { query(submittable: StatementRun<Row>): unknown },
  shapes: RowShapes,
  name: string | undefined,
  text: string,
  values: readonly unknown[],
): Promise<StatementResult<Row>> {
  const wire = values.map(wireValue);
  return new Promise<StatementResult<Row>>((resolve, reject) => {
    client.query(new StatementRun<Row>(shapes, name, text, wire, resolve, reject));
  }).catch(withCallersStack);
}

/**
 * `runStatement` on a connection of `pool`, which goes back to it after, as `pool.query` does:
 * dropped when the statement failed, in case the failure was the connection's.
 */
export async function runPooledStatement<Row>(
  pool: {
    connect(): Promise<{ query(submittable: StatementRun<Row>): unknown; release(error?: Error): void }>;
  },
  shapes: RowShapes,
  name: string | undefined,
  text: string,
  values: readonly unknown[],
): Promise<StatementResult<Row>> {
  const client = await pool.connect();
  let result: StatementResult<Row>;
  try {
    result = await runStatement<Row>(client, shapes, name, text, values);
  } catch (error) {
    client.release(error instanceof Error ? error : new Error(String(error)));
    throw error;
  }
  client.release();
  return result;
}

/**
 * A failure comes from the socket's read, whose stack says nothing of who ran the statement:
 * taken again here, it is the chain of calls that awaited it (pg's own queries do the same).
 */
function withCallersStack(error: unknown): never {
  if (error instanceof Error) Error.captureStackTrace(error);
  throw error;
}

/**
 * A value as the text PostgreSQL parses into its column's type, or null: what pg's own Query
 * makes of the values the store binds (strings, numbers, booleans, and flat arrays of them for
 * `unnest`, as array literals).
 */
function wireValue(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value)) return arrayLiteral(value);
  return scalarText(value);
}

function scalarText(value: unknown): string {
  switch (typeof value) {
    case "string":
      return value;
    case "number":
    case "bigint":
    case "boolean":
      return String(value);
    default:
      // Nothing else is bound by the store: a bug to hear about, not a value to guess an encoding for.
      throw new TypeError(`a statement value of type ${typeof value} is not supported`);
  }
}

/** `{"a","b\\"c",NULL}`: each element quoted, its backslashes and quotes escaped; null is NULL. */
function arrayLiteral(values: readonly unknown[]): string {
  let literal = "{";
  for (let index = 0; index < values.length; index++) {
    const value = values[index];
    if (index > 0) literal += ",";
    literal +=
      value === null || value === undefined
        ? "NULL"
        : `"${scalarText(value).replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  }
  return `${literal}}`;
}

/**
 * The `Submittable` pg's client drives: it calls `submit` when the connection is free, then
 * `handle*` for each message of the answer. `name` and `text` are read by the client, which keeps
 * its record of prepared statements by them.
 */
class StatementRun<Row> {
  readonly name: string | undefined;
  readonly text: string;
  readonly #values: (string | null)[];
  readonly #shapes: RowShapes;
  #shape: RowShape | undefined;
  #rows: Row[] = [];
  #rowCount = 0;
  #failure: Error | undefined;
  #settle: ((error: Error | undefined) => void) | undefined;

  constructor(
    shapes: RowShapes,
    name: string | undefined,
    text: string,
    values: (string | null)[],
    resolve: (result: StatementResult<Row>) => void,
    reject: (error: Error) => void,
  ) {
    this.#shapes = shapes;
    this.name = name;
    this.text = text;
    this.#values = values;
    this.#shape = shapes.get(name);
    this.#settle = (error) => {
      this.#settle = undefined;
      if (error) reject(error);
      else resolve({ rows: this.#rows, rowCount: this.#rowCount });
    };
  }

  submit(connection: Connection): Error | null {
    const prepared = connection as unknown as PreparedStatementsOf;
    const name = this.name;
    const previous =
      name === undefined
        ? undefined
        : (prepared.parsedStatements[name] ?? prepared.submittedNamedStatements[name]);
    if (previous !== undefined && previous !== this.text)
      return new Error(`prepared statement ${name} was used for a different statement`);
    // One write for the whole exchange, not one per message.
    connection.stream.cork();
    try {
      if (previous === undefined) {
        connection.parse({ name: name ?? "", text: this.text, types: [] }, true);
        if (name !== undefined) prepared.submittedNamedStatements[name] = this.text;
      }
      connection.bind({ statement: name, values: this.#values }, true);
      if (this.#shape === undefined) connection.describe({ type: "P" }, true);
      connection.execute({}, true);
      connection.sync();
    } finally {
      connection.stream.uncork();
    }
    return null;
  }

  handleRowDescription(message: { fields: FieldDef[] }): void {
    this.#shape = this.#shapes.learn(this.name, message.fields);
  }

  handleDataRow(message: { fields: (string | null)[] }): void {
    const shape = this.#shape;
    if (shape === undefined) {
      this.#failure ??= new Error("PostgreSQL sent a row before describing it");
      return;
    }
    if (this.#failure) return;
    const row: Record<string, unknown> = { ...shape.template };
    const fields = message.fields;
    try {
      for (let index = 0; index < fields.length; index++) {
        const text = fields[index]!;
        row[shape.names[index]!] = text === null ? null : shape.parsers[index]!(text);
      }
    } catch (error) {
      this.#failure = error instanceof Error ? error : new Error(String(error));
      return;
    }
    this.#rows.push(row as Row);
  }

  handleCommandComplete(message: { text: string }): void {
    const count = ROW_COUNT.exec(message.text);
    this.#rowCount = count ? Number(count[1]) : 0;
  }

  handleError(error: Error): void {
    this.#settle?.(error);
  }

  handleReadyForQuery(): void {
    // A statement that returns no rows (NoData) was described too: its shape is no columns.
    if (this.#shape === undefined && this.#failure === undefined) this.#shapes.learn(this.name, []);
    this.#settle?.(this.#failure);
  }

  handleEmptyQuery(): void {}

  handlePortalSuspended(): void {}

  handleCopyInResponse(connection: Connection): void {
    (connection as unknown as { sendCopyFail(message: string): void }).sendCopyFail("no COPY is run here");
  }

  handleCopyData(): void {}
}
