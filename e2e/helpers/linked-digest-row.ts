/**
 * The issue page's "Linked digest events" row, checked where it used to break (issue 34): at a
 * desktop and a phone width, the other side's short id, title and time all have a box inside the
 * row and the panel, no element of the row scrolls sideways, and the title shows its text.
 * Screenshots of the panel go to .tmp/linked-digest-<name>-<width>.png for a look.
 */
import path from "node:path";
import type { Page } from "playwright-core";
import { expect } from "vitest";
import { ROOT } from "../../test/helpers/server.js";

export async function expectLinkedRowReadable(page: Page, name: string): Promise<void> {
  for (const width of [1920, 1280, 390]) {
    await page.setViewportSize({ width, height: 900 });
    const row = page.getByTestId("linked-digest-row").first();
    await row.scrollIntoViewIfNeeded();
    const panel = page.getByRole("region", { name: "Next.js" });
    const panelBox = await panel.boundingBox();
    const rowBox = await row.boundingBox();
    expect(panelBox && rowBox).toBeTruthy();
    if (!panelBox || !rowBox) return;
    for (const id of ["linked-short-id", "linked-title", "linked-time"]) {
      const box = await row.getByTestId(id).boundingBox();
      expect(box, `${id} at ${width}px`).toBeTruthy();
      if (!box) return;
      expect(box.width, `${id} width at ${width}px`).toBeGreaterThan(12);
      expect(box.height, `${id} height at ${width}px`).toBeGreaterThan(8);
      expect(box.x, `${id} left at ${width}px`).toBeGreaterThanOrEqual(rowBox.x - 0.5);
      expect(box.x + box.width, `${id} right at ${width}px`).toBeLessThanOrEqual(rowBox.x + rowBox.width + 0.5);
      expect(box.x + box.width, `${id} inside the panel at ${width}px`).toBeLessThanOrEqual(panelBox.x + panelBox.width + 0.5);
    }
    // No element of the row is wider than it shows (scroll width = client width), time never cut.
    const overflow = await row.evaluate((li) =>
      [li, ...Array.from(li.querySelectorAll<HTMLElement>("*"))]
        .filter((el) => el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).display !== "inline")
        .map((el) => el.outerHTML.slice(0, 80)),
    );
    expect(overflow, `overflowing elements at ${width}px`).toEqual([]);
    expect((await row.getByTestId("linked-title").innerText()).length).toBeGreaterThan(10);
    expect(await row.getByTestId("linked-time").innerText()).toMatch(/ago|now/);
    await panel.screenshot({ path: path.join(ROOT, ".tmp", `linked-digest-${name}-${width}.png`) });
  }
  await page.setViewportSize({ width: 1400, height: 900 });
}
