import { escapeHtml, htmlDocument } from "../shared/html.js";
import type { MailMessage } from "../shared/mailer.js";

interface LinkMail {
  to: string;
  subject: string;
  /** Paragraphs before the link, plain text. */
  lines: readonly string[];
  link: string;
  action: string;
}

/** A short message with one link, as text and HTML; `Auto-Submitted` so no one's vacation reply answers it. */
function linkMail({ to, subject, lines, link, action }: LinkMail): MailMessage {
  const text = [...lines, "", `${action}: ${link}`, "", "If you did not expect this message, you can ignore it."].join("\n");
  const body = [
    ...lines.map((line) => `<p>${escapeHtml(line)}</p>`),
    `<p><a href="${escapeHtml(link)}">${escapeHtml(action)}</a></p>`,
    "<p>If you did not expect this message, you can ignore it.</p>",
  ].join("\n");
  return { to, subject, text, html: htmlDocument({ title: subject, body }), headers: { "Auto-Submitted": "auto-generated" } };
}

export const invitationMail = (to: string, link: string, accountName: string): MailMessage =>
  linkMail({
    to,
    subject: "You are invited to Tally",
    lines: [
      `You have been invited to the Tally account "${accountName}".`,
      "Choose a password to accept; the link works once, within 7 days.",
    ],
    link,
    action: "Accept the invitation",
  });

export const resetMail = (to: string, link: string): MailMessage =>
  linkMail({
    to,
    subject: "Reset your Tally password",
    lines: ["Someone (we hope you) asked to reset the password of this address's Tally user.", "The link works once, within one hour."],
    link,
    action: "Choose a new password",
  });
