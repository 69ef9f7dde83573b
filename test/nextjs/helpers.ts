/**
 * Real @sentry/nextjs and @sentry/browser envelopes (test/nextjs/fixtures/, see the unit test's
 * header for how they were recorded), optionally edited, as queue rows.
 */
import fs from "node:fs";
import path from "node:path";
import type { QueueInsert } from "../../src/storage/queue/queue";

export const FIXTURES = path.resolve(import.meta.dirname, "fixtures");

/** The event JSON of a fixture envelope (its one `event` item). */
export function fixtureEvent(name: string): Record<string, unknown> {
  const lines = fs.readFileSync(path.join(FIXTURES, name), "utf8").split("\n");
  const at = lines.findIndex((l) => l.startsWith('{"type":"event"'));
  if (at === -1) throw new Error(`${name}: no event item`);
  return JSON.parse(lines[at + 1] as string) as Record<string, unknown>;
}

/** An envelope with the fixture's event (edited by `patch`) under a new event id. */
export function fixtureEnvelope(name: string, eventId: string, patch?: (event: Record<string, unknown>) => void): Buffer {
  const event: Record<string, unknown> = { ...fixtureEvent(name), event_id: eventId };
  patch?.(event);
  const header = { event_id: eventId, sdk: event.sdk };
  return Buffer.from(`${JSON.stringify(header)}\n{"type":"event"}\n${JSON.stringify(event)}\n`);
}

export function queueRow(projectId: number, body: Buffer, receivedAt: number): QueueInsert {
  return { projectId, keyId: 1, receivedAt, clientIp: "198.51.100.20", kind: "envelope", body };
}

/** Sets a tag on an SDK event (object form, as the JS SDKs send them). */
export function setTag(event: Record<string, unknown>, key: string, value: string): void {
  event.tags = { ...((event.tags as Record<string, string> | undefined) ?? {}), [key]: value };
}
