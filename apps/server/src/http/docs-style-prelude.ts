/**
 * The first script of the `/docs` page, run before the renderer: it lets the renderer's own styles
 * through the page's strict policy, and nothing else.
 *
 * - A `<style>` element a script creates gets the page's nonce before it is inserted (the renderer's
 *   bundled CSS, its theme, its toasts: they do not read the nonce themselves). Markup that arrives
 *   as HTML (a description) cannot carry one: a `<style>` in it stays refused.
 * - A style attribute a script sets with `setAttribute("style", …)` is applied through the CSS
 *   object model instead, which the policy does not govern (a script may set `element.style` anyway).
 * - In HTML a script inserts (`innerHTML`), a style attribute that only sets CSS custom properties
 *   (the code blocks' `--line-count`) is applied the same way: custom properties do nothing unless
 *   one of the page's own stylesheets reads them. Any other style attribute stays refused.
 *
 * Scripts come from this server only (`script-src 'self'`), so only the renderer and this file run.
 */
export const DOCS_STYLE_PRELUDE = `"use strict";
(() => {
  const nonce = document.querySelector('meta[property="csp-nonce"]')?.content;
  const stamped = (node) => {
    if (nonce && node instanceof HTMLStyleElement && !node.nonce) node.setAttribute("nonce", nonce);
    return node;
  };
  const { appendChild, insertBefore } = Node.prototype;
  Node.prototype.appendChild = function (node) { return appendChild.call(this, stamped(node)); };
  Node.prototype.insertBefore = function (node, child) { return insertBefore.call(this, stamped(node), child); };

  const { setAttribute } = Element.prototype;
  Element.prototype.setAttribute = function (name, value) {
    if (String(name).toLowerCase() !== "style" || !("style" in this)) return setAttribute.call(this, name, value);
    this.style.cssText = String(value);
  };

  const innerHTML = Object.getOwnPropertyDescriptor(Element.prototype, "innerHTML");
  const customProperties = / style="((?:\\s*--[\\w-]+\\s*:[^;":<>]*;)+\\s*)"/g;
  Object.defineProperty(Element.prototype, "innerHTML", {
    configurable: true,
    get() { return innerHTML.get.call(this); },
    set(value) {
      const text = String(value);
      if (!text.includes(' style="--')) return innerHTML.set.call(this, text);
      innerHTML.set.call(this, text.replace(customProperties, ' data-css-properties="$1"'));
      for (const element of this.querySelectorAll("[data-css-properties]")) {
        element.style.cssText = element.getAttribute("data-css-properties");
        element.removeAttribute("data-css-properties");
      }
    },
  });
})();
`;
