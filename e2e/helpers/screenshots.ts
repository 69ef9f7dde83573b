/**
 * Screenshots for docs/screenshots/, light and dark, taken by the browser tests when
 * SCREENSHOTS=1 (or ERRATA_SCREENSHOTS=1); otherwise a no-op.
 */
import path from "node:path";
import type { Page } from "playwright-core";
import { ROOT } from "../../test/helpers/server.js";

export const SCREENSHOTS = process.env.SCREENSHOTS === "1" || process.env.ERRATA_SCREENSHOTS === "1";

export async function shoot(page: Page, name: string): Promise<void> {
  if (!SCREENSHOTS) return;
  for (const theme of ["light", "dark"] as const) {
    await page.emulateMedia({ colorScheme: theme });
    await page.screenshot({ path: path.join(ROOT, "docs", "screenshots", `${name}-${theme}.png`), fullPage: true });
  }
  await page.emulateMedia({ colorScheme: "light" });
}
