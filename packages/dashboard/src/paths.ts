// Funnels and journeys (docs/statistics.md): the website's funnels as bars with their
// drop-off, defined and deleted here; and a journey from a page or an event, step by step
// as columns of the most frequent values. Only on the account's dashboard (share pages
// have no funnels).
import { isApiError, type Client } from "./api.js";
import type { CardQuery } from "./breakdown.js";
import { h, mount } from "./dom.js";
import { barRow } from "./bar-row.js";
import { formatNumber, formatPercent } from "./format.js";
import { t } from "./i18n.js";
import type { Viewer } from "./segments.js";

type Funnel = Awaited<ReturnType<Client["funnels"]["list"]>>[number];

/** What a card says of a failed read: nothing more for a bad filter (the page names it once), else the error. */
const failureText = (error: unknown) =>
  isApiError(error) && Object.keys(error.errors).some((field) => field.startsWith("filter"))
    ? "—"
    : error instanceof Error
      ? error.message
      : t("error.load");
const failure = (error: unknown) => h("li", { class: "empty error" }, failureText(error));

/** A step as people pick it: a page (a path, `*` for any characters) or an event, and its value. */
function stepField(kind: "page" | "event" = "page", value = ""): { element: HTMLElement; text(): string } {
  const type = h(
    "select",
    { name: "step_type", "aria-label": t("paths.stepType") },
    h("option", { value: "page" }, t("paths.page")),
    h("option", { value: "event" }, t("paths.event")),
  );
  type.value = kind;
  const input = h("input", {
    name: "step",
    value,
    autocomplete: "off",
    spellcheck: "false",
    maxlength: 200,
    "aria-label": t("paths.stepValue"),
  });
  const placeholder = () => (input.placeholder = type.value === "page" ? "/pricing" : "Signup");
  type.addEventListener("change", placeholder);
  placeholder();
  return {
    element: h("div", { class: "step-field" }, type, input),
    text: () => (input.value.trim() ? `${type.value}:${input.value.trim()}` : ""),
  };
}

/** The API's messages of a refusal, each once (every bad step says the same). */
const messagesOf = (error: unknown) =>
  isApiError(error) ? [...new Set(Object.values(error.errors).flat())].join(" ") || error.message : t("error.generic");

function funnelCard(client: Client, websiteId: number, viewer: Viewer): { element: HTMLElement; load(query: CardQuery): void } {
  let query: CardQuery = { from: "", to: "" };
  let funnels: Funnel[] = [];
  const picker = h("select", { name: "funnel", "aria-label": t("paths.funnel"), onchange: () => void show() });
  const remove = h("button", { type: "button", class: "ghost", title: t("paths.delete"), "aria-label": t("paths.delete") }, "×");
  const rows = h("ol", { class: "property-rows funnel-rows" });
  const name = h("input", { name: "name", required: true, maxlength: 100, placeholder: t("paths.name"), "aria-label": t("paths.name") });
  let steps = [stepField(), stepField()];
  const stepList = h("div", { class: "step-list" });
  const showSteps = () =>
    mount(
      stepList,
      ...steps.map((step, index) =>
        h(
          "div",
          { class: "step-row" },
          h("span", { class: "step-number" }, `${index + 1}.`),
          step.element,
          steps.length > 2
            ? h(
                "button",
                {
                  type: "button",
                  class: "ghost",
                  "aria-label": t("paths.removeStep", { step: index + 1 }),
                  onclick: () => ((steps = steps.filter((other) => other !== step)), showSteps()),
                },
                "×",
              )
            : null,
        ),
      ),
    );
  showSteps();
  const addStep = h(
    "button",
    { type: "button", class: "ghost", onclick: () => steps.length < 8 && ((steps = [...steps, stepField()]), showSteps()) },
    `+ ${t("paths.addStep")}`,
  );
  const problem = h("p", { class: "field-error error", role: "alert" });

  async function show(): Promise<void> {
    const funnel = funnels.find((each) => String(each.id) === picker.value);
    remove.hidden = !funnel;
    if (!funnel) return void mount(rows, h("li", { class: "empty" }, t("paths.noFunnels")));
    rows.setAttribute("aria-busy", "true");
    try {
      const { data } = await client.stats.funnel(websiteId, { ...query, funnel: funnel.id });
      const first = data[0]?.visitors ?? 0;
      mount(
        rows,
        ...data.map((row) =>
          barRow(
            `${row.step}. ${row.label}`,
            row.visitors,
            first,
            `${formatPercent(row.conversion_rate)}${row.drop_off > 0 ? ` · ${t("paths.dropOff", { count: formatNumber(row.drop_off) })}` : ""}`,
          ),
        ),
      );
    } catch (error) {
      mount(rows, failure(error));
    } finally {
      rows.removeAttribute("aria-busy");
    }
  }

  async function refresh(selected?: number): Promise<void> {
    funnels = await client.funnels.list(websiteId).catch(() => []);
    mount(picker, ...funnels.map((funnel) => h("option", { value: funnel.id }, funnel.name)));
    if (selected !== undefined) picker.value = String(selected);
    await show();
  }

  async function add(event: Event): Promise<void> {
    event.preventDefault();
    problem.textContent = "";
    try {
      const funnel = await client.funnels.create(websiteId, { name: name.value, steps: steps.map((step) => step.text()).filter(Boolean) });
      name.value = "";
      steps = [stepField(), stepField()];
      showSteps();
      await refresh(funnel.id);
    } catch (error) {
      problem.textContent = messagesOf(error);
    }
  }

  remove.addEventListener("click", () => {
    const id = Number(picker.value);
    if (id && confirm(t("paths.delete"))) void client.funnels.delete(websiteId, id).then(() => refresh());
  });
  // A viewer (or a read key) reads funnels and defines none: no form, no delete button.
  const element = h(
    "section",
    { class: "card funnels", "aria-label": t("paths.funnels") },
    h("header", {}, h("h2", {}, t("paths.funnels")), picker, viewer.canWrite ? remove : null),
    rows,
    viewer.canWrite
      ? h(
          "details",
          {},
          h("summary", {}, t("paths.newFunnel")),
          h(
            "form",
            { class: "funnel-form", onsubmit: (event: Event) => void add(event) },
            name,
            stepList,
            addStep,
            h("button", { type: "submit" }, t("paths.add")),
          ),
          h("p", { class: "hint muted" }, t("paths.stepsHint")),
          problem,
        )
      : null,
  );
  return {
    element,
    load(next) {
      query = next;
      void refresh(Number(picker.value) || undefined);
    },
  };
}

function journeyCard(client: Client, websiteId: number): { element: HTMLElement; load(query: CardQuery): void } {
  let query: CardQuery = { from: "", to: "" };
  const start = stepField("page", "/");
  const direction = h(
    "select",
    { name: "direction", "aria-label": t("paths.direction") },
    h("option", { value: "next" }, t("paths.next")),
    h("option", { value: "previous" }, t("paths.previous")),
  );
  const depth = h("select", { name: "depth", "aria-label": t("paths.depth") }, ...[1, 2, 3, 4, 5].map((n) => h("option", { value: n }, n)));
  depth.value = "3";
  // Its steps wrap onto rows on narrow screens: every step in view, no sideways scroll.
  const flow = h("div", { class: "flow", "aria-label": t("paths.journey") });

  async function show(event?: Event): Promise<void> {
    event?.preventDefault();
    const text = start.text();
    if (!text) return;
    const from = text.startsWith("event:") ? { from_event: text.slice(6) } : { from_page: text.slice(5) };
    flow.setAttribute("aria-busy", "true");
    try {
      const { data, links } = await client.stats.journey(websiteId, {
        ...query,
        ...from,
        direction: direction.value as "next" | "previous",
        depth: Number(depth.value),
      });
      const max = data[0]?.visitors ?? 0;
      const columns = [...new Set(data.map((node) => node.step))].map((step) =>
        h(
          "ol",
          { class: "property-rows", "aria-label": t("paths.step", { step }) },
          ...data
            .filter((node) => node.step === step)
            .map((node) => {
              const row = barRow(node.value, node.visitors, max);
              // Where this node's visitors came from (the step before), as its tooltip.
              const incoming = links.filter((link) => link.step === step && link.to === node.value);
              if (incoming.length > 0) row.title = incoming.map((link) => `${link.from} → ${formatNumber(link.visitors)}`).join("\n");
              return row;
            }),
        ),
      );
      mount(flow, ...(max > 0 ? columns : [h("p", { class: "muted" }, t("paths.noJourney"))]));
    } catch (error) {
      mount(flow, h("p", { class: "error" }, failureText(error)));
    } finally {
      flow.removeAttribute("aria-busy");
    }
  }

  const element = h(
    "section",
    { class: "card journey", "aria-label": t("paths.journey") },
    h("header", {}, h("h2", {}, t("paths.journey"))),
    h(
      "form",
      { class: "property-form journey-form", "aria-label": t("paths.start"), onsubmit: (event: Event) => void show(event) },
      start.element,
      direction,
      depth,
      h("button", { type: "submit" }, t("goals.show")),
    ),
    flow,
  );
  return {
    element,
    load(next) {
      query = next;
      void show();
    },
  };
}

/** The funnel and journey cards of one website. */
export function pathCards(client: Client, websiteId: number, viewer: Viewer): { elements: HTMLElement[]; load(query: CardQuery): void } {
  const cards = [funnelCard(client, websiteId, viewer), journeyCard(client, websiteId)];
  return { elements: cards.map((card) => card.element), load: (query) => cards.forEach((card) => card.load(query)) };
}
