/**
 * Structured logs. Modules take a child (`log.child({ mod: "ingest" })`). Log decisions and ids,
 * never payloads, secrets or tokens.
 */
import pino, { type Logger } from "pino";

export type { Logger };

export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { app: "errata" },
    redact: {
      paths: ["password", "*.password", "token", "*.token", "authorization", "*.authorization", "cookie", "*.cookie"],
      censor: "[redacted]",
    },
  });
}
