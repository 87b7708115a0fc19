// Saved segments in the toolbar: the website's shared ones and the person's own, each a
// click away; the current filters saved under a name, for oneself or (admins and owners)
// for the team. A segment's filters apply beside the page's own (the URL holds its id).
import { isApiError, type Client, type SavedSegment } from "./api.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { dismissable } from "./popover.js";

/** Who uses the dashboard, as the segments menu needs it. */
export interface Viewer {
  /** An admin or owner with a write key or a session: may share segments and change the website's goals and notes. */
  canWrite: boolean;
  /** A person (not an account key or the host's login): may keep segments of their own. */
  hasUser: boolean;
}

export interface SegmentsMenu {
  element: HTMLElement;
  /** The segment's filters (the API's texts), or null when the website has no such segment for this person. */
  filtersOf(id: number): Promise<SavedSegment | null>;
  /** Redraws the menu for the page's current filters and segment. */
  update(state: { filters: readonly string[]; segment: number | null }): void;
}

export function segmentsMenu(
  client: Client,
  websiteId: number,
  viewer: Viewer,
  onSegment: (segment: number | null, filters?: "keep" | "clear") => void,
): SegmentsMenu {
  let loading: Promise<SavedSegment[]> | null = null;
  let current: { filters: readonly string[]; segment: number | null } = { filters: [], segment: null };
  const list = () => (loading ??= client.segments.list(websiteId).catch(() => []));
  const summary = h("summary", {}, t("segments.title"));
  const items = h("div", { class: "menu-items segment-items" });
  const menu = h("details", { class: "menu segments" }, summary, items);
  dismissable({ root: menu, opener: summary, isOpen: () => menu.open, close: () => (menu.open = false) });

  function saveForm(): HTMLFormElement {
    const name = h("input", {
      name: "name",
      required: true,
      maxlength: 100,
      placeholder: t("segments.name"),
      "aria-label": t("segments.name"),
    });
    const shared = h("input", { type: "checkbox", name: "shared", id: "segment-shared" });
    const problem = h("p", { class: "field-error error", role: "alert" });
    const form = h(
      "form",
      {
        class: "segment-form",
        onsubmit: (event: Event) => {
          event.preventDefault();
          problem.textContent = "";
          const visibility = !viewer.hasUser || shared.checked ? "shared" : "personal";
          client.segments.create(websiteId, { name: name.value, filters: [...current.filters], visibility }).then(
            (segment) => {
              loading = null;
              menu.open = false;
              onSegment(segment.id, "clear");
            },
            (error: unknown) =>
              (problem.textContent = isApiError(error) ? (Object.values(error.errors).flat()[0] ?? error.message) : t("error.generic")),
          );
        },
      },
      h("strong", {}, t("segments.save")),
      name,
      viewer.canWrite && viewer.hasUser ? h("label", { class: "check", for: shared.id }, shared, t("segments.shareWithTeam")) : null,
      h("button", { type: "submit" }, t("segments.saveButton")),
      problem,
    );
    return form;
  }

  function row(segment: SavedSegment): HTMLElement {
    const active = segment.id === current.segment;
    const deletable = segment.visibility === "personal" || viewer.canWrite;
    return h(
      "div",
      { class: "segment-row", "data-segment": segment.id },
      h(
        "button",
        {
          type: "button",
          class: "ghost",
          "aria-pressed": String(active),
          onclick: () => ((menu.open = false), onSegment(active ? null : segment.id)),
        },
        segment.name,
        h("span", { class: "muted" }, ` · ${t(segment.visibility === "shared" ? "segments.shared" : "segments.personal")}`),
      ),
      deletable
        ? h(
            "button",
            {
              type: "button",
              class: "ghost",
              "aria-label": t("segments.delete", { name: segment.name }),
              onclick: () => {
                if (!confirm(t("segments.delete", { name: segment.name }))) return;
                void client.segments.delete(websiteId, segment.id).then(() => {
                  loading = null;
                  if (active) onSegment(null);
                  else void render();
                });
              },
            },
            "×",
          )
        : null,
    );
  }

  async function render(): Promise<void> {
    const segments = await list();
    const active = segments.find((segment) => segment.id === current.segment);
    // The applied segment's name is on its chip; the menu stays short so the toolbar keeps its row.
    menu.classList.toggle("active", Boolean(active));
    mount(
      items,
      segments.length === 0 ? h("p", { class: "muted" }, t("segments.none")) : null,
      ...segments.map(row),
      current.filters.length > 0 ? saveForm() : h("p", { class: "muted hint" }, t("segments.hint")),
    );
  }

  return {
    element: menu,
    async filtersOf(id) {
      return (await list()).find((segment) => segment.id === id) ?? null;
    },
    update(state) {
      current = state;
      void render();
    },
  };
}
