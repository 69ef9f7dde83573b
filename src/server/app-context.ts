/**
 * One set of services per process. The custom server builds it before Next.js starts and parks it
 * on `globalThis`; pages and route handlers (bundled separately by Next.js) read it with `app()`,
 * so there is one database connection and one auth instance, not one per bundle.
 */
import type { AppServices } from "./services";

const KEY = Symbol.for("errata.app-context");

type Holder = { [KEY]?: AppServices };

export function setAppContext(services: AppServices): void {
  (globalThis as Holder)[KEY] = services;
}

export function app(): AppServices {
  const services = (globalThis as Holder)[KEY];
  if (!services)
    throw new Error("Errata services are not initialised: start Errata with `npm start` (the custom server), not `next start`.");
  return services;
}
