// Form fields with their error next to them: the API's 422 `errors` map lands under the
// field it names; anything else under the form.
import { TallyApiError } from "@tally-analytics/client";
import { isApiError } from "./api.js";
import { h, type Attrs, type Child } from "./dom.js";
import { t } from "./i18n.js";

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

let ids = 0;

/** A labelled control with a hint and a slot for its error (`data-error-for` its name). */
export function field(label: string, control: Control, hint?: Child): HTMLElement {
  const id = control.id || `field-${++ids}`;
  control.id = id;
  const error = h("p", { class: "field-error error", id: `${id}-error`, "data-error-for": control.name });
  const hintElement = hint ? h("p", { class: "hint muted", id: `${id}-hint` }, hint) : null;
  control.setAttribute("aria-describedby", [hintElement?.id, error.id].filter(Boolean).join(" "));
  const labelElement = h("label", { for: id }, label);
  return control instanceof HTMLInputElement && control.type === "checkbox"
    ? h("div", { class: "field check" }, control, labelElement, hintElement, error)
    : h("div", { class: "field" }, labelElement, control, hintElement, error);
}

/** A refusal found before asking the API, shown like the API's own 422 for `name`. */
export const fieldError = (name: string, message: string): TallyApiError => new TallyApiError(422, message, { [name]: [message] });

/** Clears the form's errors and status, then shows each of `errors` beside its field. */
export function showErrors(form: HTMLFormElement, errors: Readonly<Record<string, readonly string[]>>, general = ""): void {
  for (const slot of form.querySelectorAll<HTMLElement>("[data-error-for]")) {
    const messages = errors[slot.dataset.errorFor ?? ""];
    slot.textContent = messages?.join(" ") ?? "";
    const control = form.querySelector(`[name="${slot.dataset.errorFor}"]`);
    if (messages) control?.setAttribute("aria-invalid", "true");
    else control?.removeAttribute("aria-invalid");
  }
  const unplaced = Object.entries(errors).filter(([name]) => !form.querySelector(`[data-error-for="${name}"]`));
  const status = form.querySelector<HTMLElement>(".form-status");
  if (status) {
    status.textContent = [general, ...unplaced.flatMap(([, messages]) => messages)].filter(Boolean).join(" ");
    status.classList.toggle("error", status.textContent !== "");
  }
  form.querySelector<HTMLElement>("[aria-invalid]")?.focus();
}

/**
 * A form whose submit runs `send`: the button waits, 422 errors go beside their fields,
 * other failures under the form, and `done` (if any) says what happened.
 */
export function apiForm(attrs: Attrs, children: Child[], submitLabel: string, send: () => Promise<string | void>): HTMLFormElement {
  const button = h("button", { type: "submit" }, submitLabel);
  const status = h("p", { class: "form-status", role: "status" });
  const form = h("form", { ...attrs, novalidate: true }, ...children, h("div", { class: "form-actions" }, button, status));
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    void (async () => {
      button.disabled = true;
      showErrors(form, {});
      try {
        const done = await send();
        status.textContent = done ?? "";
      } catch (error) {
        if (isApiError(error) && Object.keys(error.errors).length > 0) showErrors(form, error.errors);
        else showErrors(form, {}, error instanceof Error ? error.message : t("error.generic"));
      } finally {
        button.disabled = false;
      }
    })();
  });
  return form;
}
