/**
 * "Forgot password" by email (issue 9, SPEC §9): a link with a one-time secret goes to the
 * account's address; following it sets a new password and ends every session of the account.
 * Only the secret's sha256 is stored; a link works once and expires. The answer to a request is
 * the same whether or not the address has an account, and the mail goes out after the answer, so
 * neither the words nor the timing tell anyone which addresses have accounts.
 */
import { createHash, randomBytes } from "node:crypto";
import { AppError } from "../../core/errors";
import { emailSchema, passwordSchema, validate } from "../../core/validation";
import type { Logger } from "../../log";
import type { Mailer } from "../../net/mailer";
import type { Db } from "../../storage/db";
import { writeTx } from "../../storage/dialect";
import {
  claimPasswordReset,
  countPasswordResetsSince,
  findUsablePasswordReset,
  insertPasswordReset,
} from "../../storage/members/password-resets";
import { type Auth, findUserByEmail, findUserById, revokeUserSessions, setOrCreatePassword } from "./auth";

const HOUR = 3600_000;
/** Links mailed per account per hour; more requests are answered alike and send nothing. */
const MAX_PER_HOUR = 3;

export interface PasswordResetServices {
  /** SMTP is configured: the sign-in page offers "Forgot password?". */
  readonly available: boolean;
  request(email: unknown): Promise<void>;
  /** The account a usable link belongs to (the reset page shows it), else reset_invalid. */
  check(token: string): Promise<{ email: string }>;
  /** Sets the password, uses up the link (and the account's other links), ends every session. */
  reset(token: string, password: unknown): Promise<{ email: string }>;
}

export function createPasswordResetServices(deps: {
  db: Db;
  auth: Auth;
  mailer: Mailer | null;
  publicUrl: string;
  validMinutes: number;
  log: Logger;
  now: () => number;
}): PasswordResetServices {
  const { db, auth, mailer, publicUrl, log, now } = deps;
  const hash = (token: string) => createHash("sha256").update(token).digest("hex");

  async function usable(token: string) {
    const found = typeof token === "string" && token.length <= 200 ? await findUsablePasswordReset(db, hash(token), now()) : undefined;
    const user = found ? await findUserById(auth, found.userId) : null;
    if (!found || !user) throw new AppError("reset_invalid");
    return { ...found, email: user.email };
  }

  return {
    available: mailer !== null,

    async request(raw) {
      if (!mailer) throw new AppError("password_reset_unavailable");
      const email = validate(emailSchema, raw).toLowerCase();
      const user = await findUserByEmail(auth, email);
      if (!user) return;
      if ((await countPasswordResetsSince(db, user.id, now() - HOUR)) >= MAX_PER_HOUR) return;
      const token = randomBytes(32).toString("base64url");
      await writeTx(db, (tx) =>
        insertPasswordReset(tx, { userId: user.id, tokenHash: hash(token), now: now(), expiresAt: now() + deps.validMinutes * 60_000 }),
      );
      const link = `${publicUrl}/reset-password/${token}`;
      const text = [
        "Someone (hopefully you) asked to reset the password of your Errata account.",
        "",
        `Choose a new password here (the link works once, for ${deps.validMinutes} minutes):`,
        link,
        "",
        "Setting it signs you out everywhere. If you did not ask for this, ignore this message: your password stays as it is.",
      ].join("\n");
      // After the answer: a slow or failing SMTP server must not tell anyone the account exists.
      void mailer.send({ to: user.email, subject: "Reset your Errata password", text }).catch((err: unknown) => {
        log.warn({ reason: err instanceof Error ? err.message : String(err) }, "password reset mail failed");
      });
    },

    async check(token) {
      return { email: (await usable(token)).email };
    },

    async reset(token, rawPassword) {
      const password = validate(passwordSchema, rawPassword);
      const link = await usable(token);
      const claimed = await writeTx(db, (tx) => claimPasswordReset(tx, link.id, link.userId, now()));
      if (!claimed) throw new AppError("reset_invalid");
      await setOrCreatePassword(auth, link.userId, password);
      await revokeUserSessions(auth, link.userId);
      log.info({ userId: link.userId }, "password reset");
      return { email: link.email };
    },
  };
}
