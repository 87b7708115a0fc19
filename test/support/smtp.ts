// A real SMTP server in the test process (smtp-server), with login, that parses every
// message it accepts (mailparser). It can be told to refuse messages for a while.
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { simpleParser, type ParsedMail } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface TestSmtp {
  /** `smtp://user:pass@127.0.0.1:port` */
  url: string;
  /** Every message accepted so far, parsed, in arrival order. */
  messages: ParsedMail[];
  /** While true, every recipient is refused with a temporary failure (451). */
  rejecting: boolean;
  /** How many deliveries were refused. */
  refused: number;
  /** Resolves once `count` messages have arrived (or rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

const USER = "tally";
const PASSWORD = "s3cret";

export async function startSmtp(): Promise<TestSmtp> {
  const waiters: (() => void)[] = [];
  const smtp: TestSmtp = {
    url: "",
    messages: [],
    rejecting: false,
    refused: 0,
    async waitFor(count, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while (smtp.messages.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} messages, got ${smtp.messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return smtp.messages;
    },
    close: async () => {},
  };
  const server = new SMTPServer({
    disabledCommands: ["STARTTLS"],
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, callback) {
      if (auth.username === USER && auth.password === PASSWORD) return callback(null, { user: USER });
      callback(new Error("Invalid username or password"));
    },
    onRcptTo(_address, _session, callback) {
      if (!smtp.rejecting) return callback();
      smtp.refused++;
      callback(Object.assign(new Error("Mailbox busy, try again later"), { responseCode: 451 }));
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          smtp.messages.push(mail);
          for (const wake of waiters.splice(0)) wake();
          callback();
        },
        (error: Error) => callback(error),
      );
    },
  });
  server.listen(0, "127.0.0.1");
  await once(server.server, "listening");
  const { port } = server.server.address() as AddressInfo;
  smtp.url = `smtp://${USER}:${PASSWORD}@127.0.0.1:${port}`;
  smtp.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return smtp;
}
