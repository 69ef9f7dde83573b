import Link from "next/link";
import type { ReactNode } from "react";
import type { NormalizedEvent } from "@/core/event";
import { statTagsOf } from "@/core/search/event-tags";
import type { AttachmentRef, EventNavigation } from "@/server/issues/stream";
import type { EventDetail } from "@/server/types";
import { CopyButton } from "../kit/copy-button";
import { TimeAgo } from "../kit/time-ago";
import { Breadcrumbs } from "./breadcrumbs";
import { ContextTables } from "./context-tables";
import { ExceptionChain } from "./exception-chain";
import { KvTable } from "./kv-table";
import {
  type ContextView,
  type CrumbView,
  type ExceptionView,
  type FrameView,
  isObj,
  messageStandIn,
  type NoteView,
  type Pairs,
  Problems,
  type RequestView,
  readBreadcrumbs,
  readContexts,
  readExceptions,
  readFacts,
  readMessage,
  readNotes,
  readRequest,
  readTags,
  readThreadFrames,
  readUser,
} from "./model";
import { ProcessingNotes } from "./processing-notes";
import { RawJson } from "./raw-json";
import { RequestInfo } from "./request-info";
import { StackTrace } from "./stack-trace";
import { TagList } from "./tag-list";

function safely<T>(problems: Problems, what: string, fallback: T, read: () => T): T {
  try {
    return read();
  } catch {
    problems.add(`${what} could not be read`);
    return fallback;
  }
}

/**
 * One event of an issue: exception chain, breadcrumbs, tags, contexts, user, request,
 * attachments, notes, raw JSON — with oldest · older · newer · latest navigation when `nav` and
 * `issuePath` are given (links to `?event=<id>`).
 */
export function EventView({
  detail,
  now,
  nav,
  issuePath,
  attachments = [],
}: {
  detail: EventDetail;
  now: number;
  nav?: EventNavigation;
  issuePath?: string;
  attachments?: AttachmentRef[];
}) {
  const problems = new Problems();
  const event = isObj(detail.event) ? detail.event : {};
  if (!isObj(detail.event)) problems.add("the stored event is not a JSON object");

  const read = safely<ExceptionView[]>(problems, "exception", [], () => readExceptions(event, problems));
  // A message sent with a stack trace (SDK 11 wraps it in a synthetic exception): a message and its stack.
  const standIn = messageStandIn(read);
  const exceptions = standIn ? [] : read;
  const threadFrames = standIn
    ? standIn.frames
    : exceptions.length === 0
      ? safely<FrameView[]>(problems, "threads", [], () => readThreadFrames(event, problems))
      : [];
  const message = safely<string | undefined>(problems, "message", undefined, () => readMessage(event)) ?? standIn?.value;
  const crumbs = safely<CrumbView[]>(problems, "breadcrumbs", [], () => readBreadcrumbs(event, problems));
  // The tags the event is counted under (level, environment, browser, os… then the SDK's), as the
  // sidebar's distributions: the SDK's own tags alone said "No tags." next to eight in the sidebar.
  const tags = safely<Pairs>(problems, "tags", [], () => {
    const own = readTags(event, problems);
    const derived = statTagsOf(event as NormalizedEvent);
    const seen = new Set(derived.map(([k]) => k));
    return [...derived, ...own.filter(([k]) => !seen.has(k))];
  });
  const contexts = safely<ContextView[]>(problems, "contexts", [], () => readContexts(event, problems));
  const user = safely<Pairs>(problems, "user", [], () => readUser(event, problems));
  const request = safely<RequestView | null>(problems, "request", null, () => readRequest(event, problems));
  const facts = safely<Pairs>(problems, "event summary", [], () => readFacts(event));
  const { notes, grouping } = safely<{ notes: NoteView[]; grouping: string[] }>(
    problems,
    "processing notes",
    { notes: [], grouping: [] },
    () => readNotes(event, problems),
  );

  const sections: { id: string; title: string; short?: string; body: ReactNode }[] = [];
  if (exceptions.length > 0)
    sections.push({
      id: "exception",
      title: exceptions.length > 1 ? "Exception chain" : "Exception",
      short: "Exception",
      body: <ExceptionChain exceptions={exceptions} />,
    });
  if (message && (exceptions.length === 0 || !exceptions.some((e) => e.value === message)))
    sections.push({
      id: "message",
      title: "Message",
      body: (
        <p className="rounded-md border border-border bg-code px-3 py-2 font-mono text-[12.5px] break-words whitespace-pre-wrap">
          {message}
        </p>
      ),
    });
  if (threadFrames.length > 0) sections.push({ id: "stacktrace", title: "Stack trace", body: <StackTrace frames={threadFrames} /> });
  sections.push({ id: "breadcrumbs", title: "Breadcrumbs", body: <Breadcrumbs crumbs={crumbs} /> });
  sections.push({ id: "tags", title: "Tags", body: <TagList tags={tags} /> });
  if (contexts.length > 0) sections.push({ id: "contexts", title: "Contexts", body: <ContextTables contexts={contexts} /> });
  if (user.length > 0)
    sections.push({
      id: "user",
      title: "User",
      body: (
        <div className="max-w-2xl">
          <KvTable pairs={user} label="User" />
        </div>
      ),
    });
  if (request) sections.push({ id: "request", title: "Request", body: <RequestInfo request={request} /> });
  if (attachments.length > 0 && issuePath)
    sections.push({
      id: "attachments",
      title: "Attachments",
      body: <AttachmentList attachments={attachments} base={`${issuePath}/events/${detail.eventId}/attachments`} />,
    });
  if (notes.length > 0 || grouping.length > 0)
    sections.push({
      id: "processing",
      title: "Processing notes",
      short: "Notes",
      body: <ProcessingNotes notes={notes} grouping={grouping} />,
    });
  sections.push({ id: "json", title: "JSON", body: <RawJson value={detail.event} /> });

  return (
    <div>
      {/* Pinned under the top bar at desktop widths; on a phone it scrolls away (two sticky bars hid a fifth of the screen). */}
      <div className="z-10 border-b border-border bg-bg md:sticky md:top-11">
        <div className="flex flex-wrap items-center gap-x-3 gap-y-1 pt-2 pb-1">
          <h2 className="text-[13px] font-semibold">{nav && nav.latest !== detail.eventId ? "Event" : "Latest event"}</h2>
          <span className="inline-flex min-w-0 items-center gap-1">
            <code className="truncate text-fg-muted" title="Event id">
              {detail.eventId}
            </code>
            <CopyButton text={detail.eventId} label="Copy event id" className="btn-ghost" />
          </span>
          <span className="text-[12px] text-fg-muted">
            received <TimeAgo ms={detail.receivedAt} now={now} />
          </span>
          {nav && issuePath ? (
            <div className="ml-auto">
              <EventNav nav={nav} current={detail.eventId} issuePath={issuePath} />
            </div>
          ) : null}
        </div>
        <nav aria-label="Event sections" className="-ml-1.5 hidden flex-wrap pb-1 md:flex">
          {sections.map((s) => (
            <a key={s.id} href={`#${s.id}`} className="btn btn-sm btn-ghost h-[22px] px-1.5 text-[12px] text-fg-muted hover:text-fg">
              {s.short ?? s.title}
            </a>
          ))}
        </nav>
      </div>

      {problems.list.length > 0 ? (
        <div role="status" className="mt-4 rounded-md border border-warning px-3 py-2">
          <p className="font-medium">Parts of this event could not be read; showing what could be.</p>
          <ul className="mt-1 list-disc pl-5 font-mono text-[12px] text-fg-muted">
            {problems.list.map((p) => (
              <li key={p}>{p}</li>
            ))}
          </ul>
        </div>
      ) : null}

      {facts.length > 0 ? (
        <dl className="mt-4 flex flex-wrap gap-x-6 gap-y-1 text-[12.5px]">
          {facts.map(([k, v]) => (
            <div key={k} className="flex gap-1.5">
              <dt className="text-fg-muted">{k}</dt>
              <dd className="font-mono text-[12px] break-all">{v}</dd>
            </div>
          ))}
        </dl>
      ) : null}

      {sections.map((s) => (
        <section key={s.id} id={s.id} aria-labelledby={`${s.id}-title`} className="mt-6 scroll-mt-14 md:scroll-mt-24">
          <h2 id={`${s.id}-title`} className="section-title mb-2">
            {s.title}
          </h2>
          {s.body}
        </section>
      ))}
    </div>
  );
}

/** Oldest · older · newer · latest, each disabled when it would not move. */
function EventNav({ nav, current, issuePath }: { nav: EventNavigation; current: string; issuePath: string }) {
  const link = (label: string, id: string | null, key: string) =>
    id && id !== current ? (
      <Link
        href={`${issuePath}?event=${id}`}
        className="btn btn-sm"
        title={`${label} event (${key})`}
        aria-keyshortcuts={key}
        scroll={false}
      >
        {label}
      </Link>
    ) : (
      <span className="btn btn-sm pointer-events-none opacity-40" aria-disabled="true">
        {label}
      </span>
    );
  return (
    <nav aria-label="Event navigation" className="flex items-center gap-1">
      {link("Oldest", nav.first, "Shift+O")}
      {link("Older", nav.older, "o")}
      {link("Newer", nav.newer, "n")}
      {link("Latest", nav.latest, "Shift+N")}
      <Link href={`${issuePath}/events`} className="btn btn-sm btn-ghost text-fg-muted">
        All events
      </Link>
    </nav>
  );
}

function AttachmentList({ attachments, base }: { attachments: AttachmentRef[]; base: string }) {
  return (
    <ul className="divide-y divide-border rounded-md border border-border">
      {attachments.map((a) => (
        <li key={a.id} className="flex items-center gap-3 px-3 py-1.5">
          <a href={`${base}/${a.id}`} className="truncate font-mono text-[12.5px] hover:underline" download>
            {a.name}
          </a>
          <span className="text-[12px] text-fg-dim">{a.contentType}</span>
          <span className="tabular ml-auto text-[12px] text-fg-muted">{formatBytes(a.size)}</span>
        </li>
      ))}
    </ul>
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}
