import { optionalImport } from "./lazy-require.js";

/** One e-mail as Tally hands it to a transport. */
export interface MailMessage {
  /** The configured sender; absent when the app's own `send` fills it in. */
  from?: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** Extra headers: `List-Unsubscribe`, `List-Unsubscribe-Post`, `Auto-Submitted`. */
  headers: Record<string, string>;
  /** Set on scheduled reports: the same for every attempt at one report, so a repeat can be recognised. */
  messageId?: string;
}

/** How Tally sends e-mail: an SMTP URL, or the app's own sender. */
export type MailOptions =
  | {
      /** `smtp://user:pass@host:587` (STARTTLS when offered) or `smtps://user:pass@host:465`. */
      url: string;
      /** The From header, e.g. `"Tally <tally@example.com>"`. */
      from: string;
    }
  | {
      /** Sends one message; a rejection is retried later (with backoff). */
      send(message: MailMessage): Promise<void>;
      /** The From header Tally puts on each message. @default undefined (the sender sets it) */
      from?: string;
    };

export interface Mailer {
  readonly from: string | undefined;
  send(message: MailMessage): Promise<void>;
  close(): void;
}

/** SMTP timeouts: a stuck server fails the attempt (and it is retried) well within a claim's lease. */
const SMTP_TIMEOUTS = { connectionTimeout: 30_000, greetingTimeout: 30_000, socketTimeout: 60_000 };

/** nodemailer is loaded only when an SMTP URL is configured. */
export async function createMailer(options: MailOptions): Promise<Mailer> {
  if ("send" in options) return { from: options.from, send: (message) => options.send(message), close: () => {} };
  if (!/^smtps?:\/\//i.test(options.url)) throw new TypeError("mail.url must be an smtp:// or smtps:// URL");
  const nodemailer = await optionalImport("nodemailer", () => import("nodemailer"));
  const transport = nodemailer.createTransport({ url: options.url, ...SMTP_TIMEOUTS });
  return {
    from: options.from,
    async send(message) {
      await transport.sendMail({ ...message, from: message.from ?? options.from });
    },
    close: () => transport.close(),
  };
}
