// Stylesheets of a section or a heavy component, loaded with the module that needs them instead of
// with the first page. A module awaits loadStylesheet() at its top level, so its page renders only once
// its styles apply (no flash of unstyled content). The policy allows same-origin <link> stylesheets.

const loading = new Map();

/**
 * Adds `<link rel="stylesheet" href>` once and resolves when it has loaded; rejects when it cannot
 * be loaded (the app then shows "This page could not be loaded").
 * @param {string} href a same-origin path, e.g. new URL('./x.css', import.meta.url).pathname
 * @returns {Promise<void>}
 */
export function loadStylesheet(href) {
  let p = loading.get(href);
  if (!p) {
    p = new Promise((resolve, reject) => {
      const link = Object.assign(document.createElement('link'), { rel: 'stylesheet', href });
      link.addEventListener('load', () => resolve());
      link.addEventListener('error', () => {
        loading.delete(href);
        link.remove();
        reject(new Error(`the stylesheet ${href} did not load`));
      });
      document.head.append(link);
    });
    loading.set(href, p);
  }
  return p;
}
