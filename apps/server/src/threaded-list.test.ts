import { describe, expect, it } from "vitest";
import { type Threaded, ThreadedList } from "./threaded-list.js";

interface Item extends Threaded<Item> {
  name: string;
}

const item = (name: string): Item => ({ name, previous: undefined, next: undefined });
const names = (list: ThreadedList<Item>) => [...list].map(({ name }) => name);

describe("ThreadedList", () => {
  it("holds what was added and not yet deleted, newest first, wherever a deleted one was", () => {
    const list = new ThreadedList<Item>();
    const [a, b, c, d] = ["a", "b", "c", "d"].map(item) as [Item, Item, Item, Item];
    for (const each of [a, b, c, d]) list.add(each);
    expect(names(list)).toEqual(["d", "c", "b", "a"]);
    list.delete(c);
    expect(names(list)).toEqual(["d", "b", "a"]);
    list.delete(d);
    list.delete(a);
    expect(names(list)).toEqual(["b"]);
    // Deleting what is not in changes nothing, and a deleted item keeps no neighbours.
    list.delete(a);
    expect(names(list)).toEqual(["b"]);
    expect([a.previous, a.next, c.previous, c.next]).toEqual([undefined, undefined, undefined, undefined]);
    list.delete(b);
    expect(names(list)).toEqual([]);
    list.add(a);
    expect(names(list)).toEqual(["a"]);
  });

  it("visits every item when each is deleted as it is visited", () => {
    const list = new ThreadedList<Item>();
    for (const name of ["a", "b", "c"]) list.add(item(name));
    const visited: string[] = [];
    for (const each of list) {
      visited.push(each.name);
      list.delete(each);
    }
    expect(visited).toEqual(["c", "b", "a"]);
    expect(names(list)).toEqual([]);
  });
});
