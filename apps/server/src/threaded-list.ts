/**
 * The objects in flight (requests being answered, calls waiting on the database), as a list
 * threaded through them: each carries its neighbours. What a `Set` would do, without what a Set
 * cost here: with its members coming and going on every request, a Set kept finished ones, and
 * all they referenced, alive through young-generation collections. A process serving status
 * reads on PostgreSQL had 3.4 MB survive each such collection with its waiting calls in a Set
 * (93% of it moved on to the old generation, found dead only by full collections), 0.15 MB with
 * them in this list. Likely cause: the Set's table, reallocated as members come and go, leaves
 * old copies whose stale entries keep finished members alive.
 */
export interface Threaded<Item> {
  previous: Item | undefined;
  next: Item | undefined;
}

export class ThreadedList<Item extends Threaded<Item>> {
  #first: Item | undefined;

  add(item: Item): void {
    item.next = this.#first;
    if (this.#first) this.#first.previous = item;
    this.#first = item;
  }

  /** Takes `item` out; nothing happens if it is not in. */
  delete(item: Item): void {
    if (item.previous) item.previous.next = item.next;
    else if (this.#first === item) this.#first = item.next;
    if (item.next) item.next.previous = item.previous;
    item.previous = undefined;
    item.next = undefined;
  }

  *[Symbol.iterator](): Generator<Item> {
    for (let item = this.#first; item; ) {
      const next = item.next;
      yield item;
      item = next;
    }
  }
}
