/**
 * The layout check every dashboard page passes, at desktop and phone widths,
 * on element boxes (not pixels): each form control sits next to the words of
 * its label, no two controls overlap or touch, nothing reaches past the viewport
 * except inside a container that scrolls sideways on its own (code), and no
 * table is wider than its container: a column cut off at the edge, with
 * nothing to say that more is there, is a problem even inside a scroller.
 */
import type { Page } from "playwright-core";

/** How far (CSS px) a control may be from its label's words. */
const NEXT_TO = 24;
/** How close (CSS px) two buttons or links side by side may come: closer, they read as one. */
const APART = 6;

export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 800 },
} as const;

/** What is wrong with the open page's layout, one line each; empty when nothing is. */
export async function layoutProblems(page: Page): Promise<string[]> {
  // Boxes measured before the stylesheet applies are not the page's layout.
  await page.waitForLoadState("load");
  return page.evaluate(
    ([nextTo, apart]) => {
      const problems: string[] = [];
      const visible = (element: Element) => {
        const box = element.getBoundingClientRect();
        const style = getComputedStyle(element);
        return box.width > 0 && box.height > 0 && style.visibility !== "hidden" && !element.closest(".skip");
      };
      const name = (element: Element) =>
        `${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ""}${
          element.getAttribute("name") ? `[name=${element.getAttribute("name")}]` : ""
        }${element.getAttribute("value") && element.getAttribute("type") === "radio" ? `[value=${element.getAttribute("value")}]` : ""} "${(element.textContent ?? "").trim().slice(0, 30)}"`;
      /** The box of a label's own words (its text, not the control inside it). */
      const wordsBox = (label: HTMLLabelElement): DOMRect | undefined => {
        const range = document.createRange();
        let box: DOMRect | undefined;
        const walker = document.createTreeWalker(label, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          if (!node.textContent?.trim()) continue;
          range.selectNodeContents(node);
          const r = range.getBoundingClientRect();
          if (r.width === 0) continue;
          box = box
            ? new DOMRect(
                Math.min(box.left, r.left),
                Math.min(box.top, r.top),
                Math.max(box.right, r.right) - Math.min(box.left, r.left),
                Math.max(box.bottom, r.bottom) - Math.min(box.top, r.top),
              )
            : r;
        }
        return box;
      };
      const gap = (a: DOMRect, b: DOMRect) =>
        Math.max(0, a.left - b.right, b.left - a.right, a.top - b.bottom, b.top - a.bottom);

      const controls = [...document.querySelectorAll("input:not([type=hidden]), select, textarea")].filter(
        visible,
      ) as (HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement)[];
      for (const control of controls) {
        const label = control.labels?.[0];
        if (!label) {
          if (!control.getAttribute("aria-label")) problems.push(`${name(control)} has no label`);
          continue;
        }
        const words = wordsBox(label);
        if (!words) continue;
        const box = control.getBoundingClientRect();
        const distance = gap(box, words);
        if (distance > nextTo) problems.push(`${name(control)} is ${Math.round(distance)}px from its label`);
        const inline =
          control instanceof HTMLInputElement && (control.type === "radio" || control.type === "checkbox");
        if (inline) {
          const middle = (box.top + box.bottom) / 2;
          if (middle < words.top || middle > words.bottom || box.left > words.left)
            problems.push(`${name(control)} is not on the line before its words`);
        }
      }

      const inScroller = (element: Element) => {
        for (let node = element.parentElement; node && node !== document.body; node = node.parentElement) {
          const overflow = getComputedStyle(node).overflowX;
          if (overflow === "auto" || overflow === "scroll") return true;
        }
        return false;
      };
      if (document.documentElement.scrollWidth > window.innerWidth + 1)
        problems.push(
          `the page is ${document.documentElement.scrollWidth}px wide in a ${window.innerWidth}px viewport`,
        );
      const boxed = [...document.querySelectorAll("main *, header *")].filter(visible);
      for (const element of boxed) {
        if (inScroller(element)) continue;
        const box = element.getBoundingClientRect();
        if (box.right > window.innerWidth + 1 || box.left < -1)
          problems.push(
            `${name(element)} overflows the viewport (${Math.round(box.left)}..${Math.round(box.right)})`,
          );
      }

      const interactive = [
        ...document.querySelectorAll(
          "a, button, input:not([type=hidden]), select, textarea, video, progress",
        ),
      ].filter(visible);
      for (let i = 0; i < interactive.length; i++)
        for (let j = i + 1; j < interactive.length; j++) {
          const a = interactive[i]!;
          const b = interactive[j]!;
          if (a.contains(b) || b.contains(a)) continue;
          const p = a.getBoundingClientRect();
          const q = b.getBoundingClientRect();
          const overlapX = Math.min(p.right, q.right) - Math.max(p.left, q.left);
          const overlapY = Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top);
          if (overlapX > 1 && overlapY > 1) problems.push(`${name(a)} overlaps ${name(b)}`);
          // Side by side on one line (a button and its Cancel link): a gap between them.
          const gapX = Math.max(p.left - q.right, q.left - p.right);
          const sameLine = overlapY > Math.min(p.height, q.height) / 2;
          const boxed = (element: Element) => element.matches("button, .button, input, select, textarea");
          if (sameLine && gapX >= 0 && gapX < apart && (boxed(a) || boxed(b)))
            problems.push(`${name(a)} touches ${name(b)} (${Math.round(gapX)}px apart)`);
        }

      for (const table of document.querySelectorAll("main table")) {
        if (!visible(table)) continue;
        const container = table.parentElement!;
        if (table.getBoundingClientRect().width > container.clientWidth + 1) {
          const cells = [...table.querySelectorAll("thead th")].filter((cell) => {
            const box = cell.getBoundingClientRect();
            return box.right > container.getBoundingClientRect().left + container.clientWidth + 1;
          });
          problems.push(
            `a table is cut off at its container's edge (columns ${cells.map((cell) => `"${(cell.textContent ?? "").trim()}"`).join(", ") || "?"} out of sight)`,
          );
        }
      }
      return problems;
    },
    [NEXT_TO, APART] as const,
  );
}
