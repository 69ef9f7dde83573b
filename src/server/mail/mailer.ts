/**
 * Outgoing email over SMTP (nodemailer), configured by SMTP_* (src/config.ts). Tiny on purpose:
 * alerts and invitations both send through `sendMail`. No I/O at import; the transport is made per
 * call (alerts are rare; a pooled transport would hold a connection open for nothing).
 */
import nodemailer from "nodemailer";
import type { SmtpConfig } from "../../config";

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
export async function sendMail(smtp: SmtpConfig, mail: Mail, timeoutMs = 10_000): Promise<{ response: string; accepted: string[] }> {
  if (!smtp.host) throw new MailNotConfiguredError();
  const transport = nodemailer.createTransport({
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
