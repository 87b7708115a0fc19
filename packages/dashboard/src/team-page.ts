// The Team page (owners): who has access, with which role and websites; invitations, sent
// and pending (revocable); and whether two-factor sign-in is required.
import type { Client, Me, User } from "./api.js";
import { copyField } from "./copy-field.js";
import { h, mount } from "./dom.js";
import { apiForm, field } from "./form.js";
import { t } from "./i18n.js";

const ROLES = ["viewer", "admin", "owner"] as const;
type Role = (typeof ROLES)[number];

const roleSelect = (name: string, selected: Role) =>
  h("select", { name }, ...ROLES.map((role) => h("option", { value: role, selected: role === selected }, t(`team.role.${role}`))));

/** The account's websites by id, for names instead of numbers. */
type Domains = ReadonlyMap<number, string>;

/** Every website (or some, ticked by name): who may see what. */
function websitePicker(domains: Domains): { element: HTMLElement; value(): number[] | null } {
  const all = h("input", { type: "checkbox", name: "all_websites", id: "all-websites", checked: true });
  const boxes = [...domains].map(([id, domain]) => {
    const box = h("input", { type: "checkbox", name: "websites", value: id, id: `website-${id}` });
    return { id, box, element: h("label", { class: "check", for: box.id }, box, domain) };
  });
  const some = h("div", { class: "website-choices", hidden: true }, ...boxes.map((choice) => choice.element));
  all.addEventListener("change", () => (some.hidden = all.checked));
  return {
    element: h(
      "fieldset",
      { class: "field websites-field" },
      h("legend", {}, t("team.websites")),
      h("label", { class: "check", for: all.id }, all, t("team.allWebsites")),
      some,
    ),
    value: () => (all.checked ? null : boxes.filter((choice) => choice.box.checked).map((choice) => choice.id)),
  };
}

function memberRow(client: Client, me: Me, user: User, domains: Domains, refresh: () => void): HTMLElement {
  const role = roleSelect("role", user.role);
  const status = h("span", { class: "form-status", role: "status" });
  role.setAttribute("aria-label", t("team.roleOf", { email: user.email }));
  role.addEventListener("change", () => {
    client.users.update(user.id, { role: role.value as Role }).then(refresh, (error: Error) => (status.textContent = error.message));
  });
  const remove = () => {
    if (confirm(t("team.removeConfirm", { email: user.email })))
      client.users.remove(user.id).then(refresh, (error: Error) => (status.textContent = error.message));
  };
  return h(
    "tr",
    { "data-email": user.email },
    h("td", {}, user.email, me.user?.id === user.id ? ` (${t("team.you")})` : ""),
    h("td", {}, role),
    h("td", {}, user.websites?.map((id) => domains.get(id) ?? `#${id}`).join(", ") ?? t("team.allWebsites")),
    h("td", {}, user.two_factor ? t("team.twoFactorOn") : "–"),
    h(
      "td",
      {},
      h(
        "button",
        { type: "button", class: "danger", onclick: remove, "aria-label": t("team.removeWho", { email: user.email }) },
        t("team.remove"),
      ),
      status,
    ),
  );
}

export async function teamPage(client: Client, me: Me): Promise<HTMLElement> {
  const rows = h("tbody");
  const listed = await client.websites.list({ per_page: 100, sort_by: "domain", sort: "asc" });
  const domains: Domains = new Map(listed.data.map((site) => [site.id, site.domain]));
  const pendingList = h("ul", { class: "pending-invitations" });
  const pending = h("section", { class: "card", hidden: true }, h("h2", {}, t("team.pending")), pendingList);
  async function refresh(): Promise<void> {
    const [users, invitations] = await Promise.all([client.users.list(), client.users.invitations()]);
    mount(rows, ...users.map((user) => memberRow(client, me, user, domains, () => void refresh())));
    pending.hidden = invitations.length === 0;
    mount(
      pendingList,
      ...invitations.map(({ email, role, invited_by }) =>
        h(
          "li",
          { "data-email": email },
          `${email} · ${t(`team.role.${role}`)}${invited_by ? ` · ${t("team.invitedBy", { email: invited_by })}` : ""} `,
          h(
            "button",
            {
              type: "button",
              class: "danger",
              onclick: () => void client.users.revokeInvitation(email).then(refresh),
              "aria-label": t("team.revokeWho", { email }),
            },
            t("me.revoke"),
          ),
        ),
      ),
    );
  }
  const email = h("input", { type: "email", name: "email", autocomplete: "off", required: true });
  const role = roleSelect("role", "viewer");
  const websites = websitePicker(domains);
  const invited = h("div", { class: "invited", role: "status" });
  const invite = apiForm(
    { class: "card form", "aria-labelledby": "invite-title" },
    [
      h("h2", { id: "invite-title" }, t("team.invite")),
      field(t("team.email"), email),
      field(t("team.role"), role),
      websites.element,
      invited,
    ],
    t("team.send"),
    async () => {
      const sent = await client.users.invite({
        email: email.value.trim(),
        role: role.value as Role,
        websites: websites.value(),
      });
      mount(
        invited,
        sent.link
          ? h("div", {}, h("p", {}, t("team.link", { email: sent.email })), copyField(sent.link, t("team.invite")))
          : h("p", {}, t("team.sent", { email: sent.email })),
      );
      email.value = "";
      await refresh();
    },
  );
  const required = h("input", { type: "checkbox", name: "required", checked: me.account_requires_two_factor });
  required.addEventListener("change", () => void client.twoFactor.require(required.checked));
  void refresh();
  return h(
    "main",
    { class: "narrow wide team-page" },
    h("div", { class: "toolbar" }, h("h1", { tabindex: "-1" }, t("team.title"))),
    h(
      "section",
      { class: "card" },
      h(
        "table",
        { class: "members" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ...["team.email", "team.role", "team.websites", "me.twoFactor", ""].map((key) =>
              h("th", {}, key ? t(key as "team.email") : ""),
            ),
          ),
        ),
        rows,
      ),
      field(t("team.require2fa"), required),
    ),
    pending,
    invite,
  );
}
