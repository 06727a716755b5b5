/**
 * The pieces of the memory store's transactions: copies at the boundary and
 * writes that log how to undo themselves.
 */

/**
 * Copies a record on its way in or out, so callers never hold a reference into
 * the tables (a mutation outside a transaction would escape rollback). The
 * request, images included, is never mutated and is shared, not copied.
 */
export function copy<T extends object>(record: T): T {
  const result = { ...record };
  if ("scenario" in result) (result as { scenario: object }).scenario = { ...(result.scenario as object) };
  return result;
}

// Sorting is stable and Maps keep insertion order, so records created in the
// same millisecond stay in the order they were inserted.
export function byCreation(a: { createdAt: number }, b: { createdAt: number }): number {
  return a.createdAt - b.createdAt;
}

/**
 * Writes that record their inverse in `undo`; replaying `undo` backwards
 * restores the tables exactly (a rollback without copying them up front).
 */
export function undoableWrites(undo: (() => void)[]): {
  put<V extends object>(map: Map<string, V>, key: string, value: V): void;
  remove<V>(map: Map<string, V>, key: string): void;
  push<V>(list: V[], value: V): void;
  /** Removes the items `keep` refuses; returns how many went. */
  filter<V>(list: V[], keep: (value: V) => boolean): number;
} {
  return {
    put(map, key, value) {
      const previous = map.get(key);
      undo.push(() => (previous === undefined ? map.delete(key) : map.set(key, previous)));
      map.set(key, copy(value));
    },
    remove(map, key) {
      const previous = map.get(key);
      if (previous === undefined) return;
      undo.push(() => map.set(key, previous));
      map.delete(key);
    },
    push(list, value) {
      list.push(value);
      undo.push(() => list.pop());
    },
    filter(list, keep) {
      const previous = [...list];
      const kept = previous.filter(keep);
      if (kept.length === previous.length) return 0;
      list.splice(0, list.length, ...kept);
      undo.push(() => list.splice(0, list.length, ...previous));
      return previous.length - kept.length;
    },
  };
}
