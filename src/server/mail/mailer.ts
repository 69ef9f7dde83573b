/**
 * Outgoing mail through SMTP (nodemailer). One small interface so invitations, password resets and
 * (later) alerts share the transport; `null` when SMTP is not configured — callers then offer a
 * copyable link instead of pretending to send.
 */
import nodemailer from "nodemailer";
import type { SmtpConfig } from "../../config";

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
  const transport = nodemailer.createTransport({
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
      await transport.sendMail({ from: smtp.from, to: message.to, subject: message.subject, text: message.text });
    },
  };
}
