// Annotations: notes on a website's days, shared by everyone who sees it and drawn on the
// main chart (a line and a dot on the day, the note in the tooltip). Listed under the chart
// for the range; admins and owners add and delete them here.
import { isApiError, type Annotation, type Client } from "./api.js";
import { formatDay } from "./dates.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";

export interface AnnotationsPanel {
  element: HTMLElement;
  /** The range's notes (for the chart), shown in the list too. */
  load(range: { from: string; to: string }): Promise<Annotation[]>;
}

export function annotationsPanel(client: Client, websiteId: number, canWrite: boolean, onChange: () => void): AnnotationsPanel {
  const list = h("ul", { class: "notes" });
  const date = h("input", { type: "date", name: "date", required: true, "aria-label": t("notes.date") });
  const text = h("input", {
    name: "text",
    required: true,
    maxlength: 500,
    placeholder: t("notes.placeholder"),
    "aria-label": t("notes.text"),
  });
  const problem = h("p", { class: "field-error error", role: "alert" });
  const form = h(
    "form",
    {
      class: "note-form",
      hidden: true,
      onsubmit: (event: Event) => {
        event.preventDefault();
        problem.textContent = "";
        client.annotations.create(websiteId, { date: date.value, text: text.value }).then(
          () => {
            text.value = "";
            form.hidden = true;
            onChange();
          },
          (error: unknown) =>
            (problem.textContent = isApiError(error) ? (Object.values(error.errors).flat()[0] ?? error.message) : t("error.generic")),
        );
      },
    },
    date,
    text,
    h("button", { type: "submit" }, t("notes.add")),
    problem,
  );
  const open = h(
    "button",
    {
      type: "button",
      class: "ghost add-note",
      onclick: () => {
        form.hidden = !form.hidden;
        if (!form.hidden) text.focus();
      },
    },
    `+ ${t("notes.new")}`,
  );
  const element = h("div", { class: "annotations" }, list, canWrite ? open : null, canWrite ? form : null);

  return {
    element,
    async load(range) {
      date.value = range.to;
      const notes = await client.annotations.list(websiteId, range).catch(() => []);
      mount(
        list,
        ...notes.map((note) =>
          h(
            "li",
            { "data-note": note.id },
            h("span", { class: "note-date" }, formatDay(note.date)),
            " ",
            note.text,
            canWrite
              ? h(
                  "button",
                  {
                    type: "button",
                    class: "ghost",
                    "aria-label": t("notes.delete", { date: formatDay(note.date) }),
                    onclick: () => void client.annotations.delete(websiteId, note.id).then(onChange),
                  },
                  "×",
                )
              : null,
          ),
        ),
      );
      return notes;
    },
  };
}
