/**
 * Seals small secrets we must read back (an SSO client secret, the short-lived state of a login)
 * with AES-256-GCM under a key derived from the installation secret, one key per purpose, so a
 * value sealed for one use cannot be replayed as another. Tampered or foreign values open to null.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string | null;
}

export function createSecretBox(installationSecret: string, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync("sha256", installationSecret, "errata", `secret-box:${purpose}`, 32));
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", key, iv);
      const ct = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return `v1.${iv.toString("base64url")}.${cipher.getAuthTag().toString("base64url")}.${ct.toString("base64url")}`;
    },
    open(sealed) {
      const [v, iv, tag, ct] = sealed.split(".");
      if (v !== "v1" || !iv || !tag || ct === undefined) return null;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(iv, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
  };
}
