/**
 * Outgoing mail through SMTP (nodemailer), configured by SMTP_* (src/config.ts); `null` config when
 * SMTP is not configured. Invitations and password resets use a `Mailer` (plain text; callers offer
 * a copyable link instead when there is none); alerts use `sendMail` (text + HTML, a transport per
 * call since alerts are rare, and the server's answer for the delivery log).
 */
import type { Transporter } from "nodemailer";
import type { SmtpConfig } from "../config";

/**
 * nodemailer loads on the first mail, not at start: ~3 MB of heap in every thread that could send
 * one (the web's and the digest's, for alerts), on servers that mostly never do (measured 27 Nov).
 */
async function loadNodemailer(): Promise<typeof import("nodemailer").default> {
  return (await import("nodemailer")).default;
}

export interface MailMessage {
  to: string;
  subject: string;
  /** plain text only: nothing user-supplied is ever rendered as HTML in a mail */
  text: string;
}

export interface Mailer {
  send(message: MailMessage): Promise<void>;
}

export function createMailer(smtp: SmtpConfig | null): Mailer | null {
  if (!smtp) return null;
  let transport: Promise<Transporter> | undefined;
  const open = async (): Promise<Transporter> =>
    (await loadNodemailer()).createTransport({
      host: smtp.host,
      port: smtp.port,
      secure: smtp.secure,
      auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? "" } : undefined,
      // A stuck SMTP server must not hold a request open for minutes.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 20_000,
    });
  return {
    async send(message) {
      transport ??= open();
      await (await transport).sendMail({ from: smtp.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}

export interface Mail {
  to: string[];
  subject: string;
  text: string;
  html: string;
  /** becomes the Message-ID (`<id@errata>`) and X-Errata-Delivery: a resend is recognisable */
  idempotencyKey?: string;
}

export class MailNotConfiguredError extends Error {
  constructor() {
    super("SMTP is not configured (set SMTP_HOST)");
    this.name = "MailNotConfiguredError";
  }
}

/** Sends one message; resolves with the server's final answer (e.g. "250 OK: queued"). */
export async function sendMail(smtp: SmtpConfig | null, mail: Mail, timeoutMs = 10_000): Promise<{ response: string; accepted: string[] }> {
  if (!smtp) throw new MailNotConfiguredError();
  const transport = (await loadNodemailer()).createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    auth: smtp.user ? { user: smtp.user, pass: smtp.password ?? "" } : undefined,
    connectionTimeout: timeoutMs,
    greetingTimeout: timeoutMs,
    socketTimeout: timeoutMs,
  });
  try {
    const info = await transport.sendMail({
      from: smtp.from,
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      html: mail.html,
      ...(mail.idempotencyKey
        ? { messageId: `<${mail.idempotencyKey}@errata>`, headers: { "X-Errata-Delivery": mail.idempotencyKey } }
        : {}),
    });
    return { response: String(info.response ?? ""), accepted: (info.accepted ?? []).map(String) };
  } finally {
    transport.close();
  }
}
