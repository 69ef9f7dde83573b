/**
 * A real SMTP server for tests (smtp-server on 127.0.0.1, any port) whose messages are parsed
 * with mailparser into `mails`, in arrival order.
 */
import type { AddressInfo } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer } from "smtp-server";

export interface SmtpInbox {
  port: number;
  mails: ParsedMail[];
  /** The messages addressed to `address` (any To entry containing it). */
  mailsTo(address: string): ParsedMail[];
  /** The env a spawned Errata needs to send through this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startSmtpInbox(): Promise<SmtpInbox> {
  const mails: ParsedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, _session, done) {
      simpleParser(stream)
        .then((m) => {
          mails.push(m);
          done();
        })
        .catch(done);
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    mailsTo: (address) => mails.filter((m) => (Array.isArray(m.to) ? m.to : [m.to]).some((t) => t?.text.includes(address))),
    env: { SMTP_HOST: "127.0.0.1", SMTP_PORT: String(port), SMTP_FROM: "Errata <errata@example.com>" },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
