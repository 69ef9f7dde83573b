/**
 * The issue stream's search box, once React has hydrated it: keys pressed before are lost (Enter
 * submits nothing, typing opens no suggestions). "/" focusing the search is the page's own proof
 * of life, pressed until it works: a condition, never a wait for time.
 */
import type { Locator, Page } from "playwright-core";
import { expect } from "vitest";

export async function liveStreamSearch(page: Page): Promise<Locator> {
  const search = page.getByRole("combobox", { name: "Search issues" });
  await expect
    .poll(
      async () => {
        await page.keyboard.press("/");
        return search.evaluate((el) => el === document.activeElement);
      },
      { timeout: 15_000 },
    )
    .toBe(true);
  return search;
}
