// The language menu in the header: the choice is kept in this browser and applies at once.
import { h } from "./dom.js";
import { locale, setLocale, t } from "./i18n.js";
import { LOCALE_NAMES, LOCALES, type Locale } from "./messages.js";

export function languageSwitch(onChange: () => void = () => location.reload()): HTMLSelectElement {
  const select = h(
    "select",
    { class: "language", name: "language", "aria-label": t("nav.language"), title: t("nav.language") },
    ...LOCALES.map((code) => h("option", { value: code, lang: code, selected: code === locale() }, LOCALE_NAMES[code])),
  );
  select.addEventListener("change", () => {
    setLocale(select.value as Locale);
    onChange();
  });
  return select;
}
