// The page's words in the player's language: the same gettext catalogs as the command line, served
// by GET /v1/messages. The language is the one chosen on the page (kept on this device), else the
// one the browser asks for (Accept-Language). Static text carries data-i18n (its English text is the
// message id) or data-i18n-aria (its aria-label is); code calls t() and tn().

const CHOSEN_KEY = "cartographers.language";
let catalog = { language: "en", languages: { en: "English" }, messages: {}, plurals: {}, plural_index: [] };

const fill = (text, values) => text.replace(/\{(\w+)\}/g, (m, k) => (k in values ? String(values[k]) : m));

/** ``message`` in the page's language, its {placeholders} filled from ``values``. */
export function t(message, values = {}) {
  return fill(catalog.messages[message] || message, values);
}

/** The plural form of the page's language for ``n`` (Ukrainian has three); {n} is filled. */
export function tn(singular, plural, n, values = {}) {
  const forms = catalog.plurals[singular];
  const index = catalog.plural_index;
  const i = index.length ? (n < index.length ? index[n] : index[100 + (n % 100)]) : (n === 1 ? 0 : 1);
  const text = forms ? (forms[i] ?? forms[forms.length - 1]) : (n === 1 ? singular : plural);
  return fill(text, { n, ...values });
}

export const language = () => catalog.language;
export const languages = () => catalog.languages;

/** The Accept-Language header every API call sends, so errors and card names come back in it. */
export const languageHeader = () => ({ "Accept-Language": catalog.language.replace("_", "-") });

/** Load the catalog: ``chosen`` (remembered), else the one remembered, else the browser's. */
export async function loadLanguage(chosen = null) {
  if (chosen) localStorage.setItem(CHOSEN_KEY, chosen);
  const wanted = chosen || localStorage.getItem(CHOSEN_KEY);
  try {
    const res = await fetch(`/v1/messages${wanted ? `?lang=${encodeURIComponent(wanted)}` : ""}`);
    if (res.ok) catalog = await res.json();
  } catch (e) {
    // no catalog: the page stays in English
  }
  document.documentElement.lang = catalog.language.replace("_", "-");
  translatePage();
  return catalog.language;
}

/** Every data-i18n element's text and data-i18n-aria element's label in the page's language. */
export function translatePage(root = document) {
  for (const node of root.querySelectorAll("[data-i18n]")) {
    if (!node.dataset.i18nId) node.dataset.i18nId = node.textContent.trim().replace(/\s+/g, " ");
    node.textContent = t(node.dataset.i18nId);
  }
  for (const node of root.querySelectorAll("[data-i18n-aria]")) {
    if (!node.dataset.i18nAriaId) node.dataset.i18nAriaId = node.getAttribute("aria-label");
    node.setAttribute("aria-label", t(node.dataset.i18nAriaId));
  }
}
