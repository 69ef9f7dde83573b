/** Reading Errata's replay player in a test: its state attributes and the recorded page inside it. */
import type { Frame, Page } from "playwright-core";

/** The recorded page inside the player under `scope` (rrweb's sandboxed, same-origin iframe). */
export async function replayFrame(page: Page, scope: string): Promise<Frame> {
  const handle = await page.locator(`${scope} iframe`).first().elementHandle({ timeout: 30_000 });
  const frame = await handle?.contentFrame();
  if (!frame) throw new Error("the player has no iframe");
  return frame;
}

/** A numeric data attribute of the player under `scope` (data-current, data-start, data-total). */
export async function playerNumber(page: Page, scope: string, attr: string): Promise<number> {
  return Number(await page.locator(`${scope} [data-testid=replay-player]`).getAttribute(attr));
}
