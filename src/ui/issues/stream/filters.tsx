"use client";
/**
 * The stream's search bar and filter menus: one GET form (works without JavaScript), submitted
 * by Enter or any menu change through the client router. The search input autocompletes keys and
 * values (the language's own, and tag keys/values from the projects' data via …/issues/suggest)
 * and shows a parse error at its position.
 */
import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useRef, useState } from "react";
import type { CompletionContext } from "../../../core/search/suggest";

// The completion logic is fetched on first use of the search box, not with the page.
const loadSuggest = () => import("../../../core/search/suggest");

export interface FilterValues {
  query: string;
  project: string;
  environment: string;
  release: string;
  level: string;
  status: string;
  assigned: string;
  sort: string;
  stats: string;
}

export interface FilterChoices {
  projects: Array<{ slug: string; name: string }>;
  environments: string[];
  releases: string[];
  members: Array<{ id: string; name: string; email: string }>;
}

type Option = [value: string, label: string];

const LEVELS: Option[] = [["", "Any level"], ...["fatal", "error", "warning", "info", "debug"].map((l): Option => [l, l])];
const STATUSES: Option[] = [
  ["unresolved", "Unresolved"],
  ["resolved", "Resolved"],
  ["ignored", "Ignored"],
  ["regressed", "Regressed"],
  ["all", "Any status"],
];
const SORTS: Option[] = [
  ["date", "Last seen"],
  ["new", "First seen"],
  ["freq", "Events"],
  ["user", "Users"],
];

export function StreamFilters({
  action,
  org,
  values,
  choices,
  error,
}: {
  action: string;
  org: string;
  values: FilterValues;
  choices: FilterChoices;
  error: { message: string; position?: number } | null;
}) {
  const router = useRouter();
  const form = useRef<HTMLFormElement>(null);
  // Phones: eight selects pushed the stream below the fold; they wait behind a "Filters" button.
  const [filtersShown, setFiltersShown] = useState(false);
  const set =
    (["project", "environment", "release", "level", "assigned"] as const).filter((k) => values[k]).length +
    (values.status && values.status !== "unresolved" ? 1 : 0);

  function submit(e?: FormEvent) {
    e?.preventDefault();
    const f = form.current;
    if (!f) return;
    const qs = new URLSearchParams();
    // Defaults stay out of the URL (unresolved is implied unless the query has an is: term).
    const defaults: Record<string, string> = { sort: "date", stats: "24h", status: "unresolved" };
    for (const [k, v] of new FormData(f)) if (typeof v === "string" && v !== "" && defaults[k] !== v) qs.set(k, v);
    const s = qs.toString();
    router.push(s ? `${action}?${s}` : action);
  }

  const select = (name: keyof FilterValues, label: string, options: Option[], width = "sm:w-[132px]") => (
    <label className="contents">
      <span className="sr-only">{label}</span>
      <select
        name={name}
        defaultValue={values[name]}
        aria-label={label}
        title={label}
        onChange={() => submit()}
        className={`input h-[28px] min-w-0 pr-1 text-[12.5px] ${width}`}
      >
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );

  return (
    // biome-ignore lint/a11y/useSemanticElements: role="search" on the form is the established landmark; <search> is too new for some assistive tech.
    <form ref={form} method="get" action={action} role="search" onSubmit={submit} className="flex flex-col gap-2">
      <div className="flex gap-2">
        <SearchInput org={org} initial={values.query} project={values.project} error={error} onSubmit={() => submit()} />
        <button type="submit" className="btn shrink-0">
          Search
        </button>
      </div>
      <button
        type="button"
        className="btn btn-sm self-start sm:hidden"
        aria-expanded={filtersShown}
        aria-controls="stream-filter-set"
        onClick={() => setFiltersShown(!filtersShown)}
      >
        Filters{set > 0 ? ` · ${set} set` : ""}
      </button>
      <div id="stream-filter-set" className={`${filtersShown ? "grid" : "hidden"} grid-cols-2 items-center gap-1.5 sm:flex sm:flex-wrap`}>
        {select("project", "Project", [["", "All projects"], ...choices.projects.map((p): Option => [p.slug, p.name])])}
        {select(
          "environment",
          "Environment",
          [["", "All environments"], ...withCurrent(choices.environments, values.environment).map((e): Option => [e, e])],
          "sm:w-[152px]",
        )}
        {select(
          "release",
          "Release",
          [["", "All releases"], ...withCurrent(choices.releases, values.release).map((r): Option => [r, r])],
          "sm:w-[140px]",
        )}
        {select("level", "Level", LEVELS, "sm:w-[104px]")}
        {select("status", "Status", STATUSES, "sm:w-[116px]")}
        {select("assigned", "Assignee", [
          ["", "Anyone"],
          ["me", "Assigned to me"],
          ["none", "Unassigned"],
          // Teams have no email: their value is the `#slug` the search language takes.
          ...choices.members.map((m): Option => [m.email || m.name, m.name || m.email]),
        ])}
        <span className="col-span-2 grid grid-cols-2 items-center gap-1.5 sm:ml-auto sm:flex">
          {select("sort", "Sort by", SORTS, "sm:w-[112px]")}
          {select(
            "stats",
            "Graph period",
            [
              ["24h", "24 hours"],
              ["14d", "14 days"],
            ],
            "sm:w-[96px]",
          )}
        </span>
      </div>
    </form>
  );
}

function withCurrent(list: string[], current: string): string[] {
  return current && !list.includes(current) ? [current, ...list] : list;
}

interface Suggestion {
  value: string;
  hint?: string;
}

/** Completions and the text and caret context they were computed for. */
interface SuggestionList {
  text: string;
  ctx: CompletionContext;
  items: Suggestion[];
}

/** The search box: a combobox with a listbox of completions under it. */
function SearchInput({
  org,
  initial,
  project,
  error,
  onSubmit,
}: {
  org: string;
  initial: string;
  project: string;
  error: { message: string; position?: number } | null;
  onSubmit: () => void;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [value, setValue] = useState(initial);
  // Completions belong to the exact text they were computed for: a list computed for an earlier
  // keystroke is never shown or applied to newer text (applied with the newer caret context it
  // turned "region:eu-west-1" into "region:region ").
  const [list, setList] = useState<SuggestionList | null>(null);
  // -1: nothing highlighted, so Enter searches what was typed; arrows pick a completion first.
  const [active, setActive] = useState(-1);
  const keys = useRef<string[] | null>(null);
  const seq = useRef(0);

  useEffect(() => setValue(initial), [initial]);

  // "/" focuses the search from anywhere (outside text fields).
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement;
      if (e.key !== "/" || e.metaKey || e.ctrlKey || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || t.isContentEditable) return;
      e.preventDefault();
      input.current?.focus();
      input.current?.select();
    };
    window.addEventListener("keydown", on);
    return () => window.removeEventListener("keydown", on);
  }, []);

  async function fetchList(params: Record<string, string>): Promise<string[]> {
    const qs = new URLSearchParams({ ...params, ...(project ? { project } : {}) });
    try {
      const res = await fetch(`/${encodeURIComponent(org)}/issues/suggest?${qs}`);
      return res.ok ? ((await res.json()) as string[]) : [];
    } catch {
      return [];
    }
  }

  async function suggest(text: string, caret: number) {
    // Numbered before any await, so the order of keystrokes decides which answer wins.
    const mine = ++seq.current;
    const { completionContext, fixedValues, matchKeys } = await loadSuggest();
    const c = completionContext(text, caret);
    let next: Suggestion[] = [];
    if (c?.kind === "key" && c.prefix.length > 0) {
      keys.current ??= await fetchList({});
      next = matchKeys(c.prefix, keys.current);
    } else if (c?.kind === "value") {
      const fixed = fixedValues(c.key);
      const values = fixed ?? (await fetchList({ key: c.key, prefix: c.prefix }));
      next = values.filter((v) => v.toLowerCase().startsWith(c.prefix.toLowerCase()) && v !== c.prefix).map((v) => ({ value: v }));
    }
    // A slower answer to an older keystroke must not overwrite a newer one.
    if (mine !== seq.current || !c) return;
    setList(next.length > 0 ? { text, ctx: c, items: next.slice(0, 8) } : null);
    setActive(-1);
  }

  async function choose(s: Suggestion) {
    const l = list;
    if (!l || l.text !== input.current?.value) return;
    const r = (await loadSuggest()).applyCompletion(l.text, l.ctx, s.value);
    seq.current++;
    setValue(r.query);
    setList(null);
    setActive(-1);
    requestAnimationFrame(() => {
      const el = input.current;
      // Keys typed since the completion have placed the caret themselves; moving it back now would
      // put the rest of the word before them ("Cannot" became "annotC").
      if (!el || el.value !== r.query) return;
      el.setSelectionRange(r.caret, r.caret);
      if (l.ctx.kind === "key") suggest(r.query, r.caret);
    });
  }

  const items = list && list.text === value ? list.items : [];
  const open = items.length > 0;
  const errorAt = error?.position !== undefined && error.position >= 0 && error.position <= value.length ? error.position : null;
  return (
    <div className="relative min-w-0 flex-1">
      <label htmlFor="issue-search" className="sr-only">
        Search issues
      </label>
      <input
        ref={input}
        id="issue-search"
        name="query"
        type="text"
        enterKeyHint="search"
        role="combobox"
        aria-expanded={open}
        aria-controls="issue-search-suggestions"
        aria-autocomplete="list"
        aria-activedescendant={open && active >= 0 ? `issue-search-opt-${active}` : undefined}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? "issue-search-error" : undefined}
        value={value}
        placeholder="is:unresolved level:error environment:production TypeError …"
        className="input pr-8 font-mono text-[12.5px]"
        autoComplete="off"
        spellCheck={false}
        title="Search issues (press / to focus)"
        onChange={(e) => {
          setValue(e.target.value);
          setList(null);
          suggest(e.target.value, e.target.selectionStart ?? e.target.value.length);
        }}
        onFocus={() => void loadSuggest()}
        onBlur={() =>
          setTimeout(() => {
            seq.current++;
            setList(null);
          }, 120)
        }
        onKeyDown={(e) => {
          if (open && (e.key === "ArrowDown" || e.key === "ArrowUp")) {
            e.preventDefault();
            const n = items.length;
            setActive((a) => (e.key === "ArrowDown" ? (a + 1) % n : a <= 0 ? n - 1 : a - 1));
          } else if (open && (e.key === "Tab" || (e.key === "Enter" && active >= 0))) {
            e.preventDefault();
            choose(items[Math.max(active, 0)] as Suggestion);
          } else if (e.key === "Escape") {
            if (open) setList(null);
            else input.current?.blur();
          } else if (e.key === "Enter") {
            e.preventDefault();
            // Answers still on their way belong to text that is now being searched.
            seq.current++;
            setList(null);
            onSubmit();
          }
        }}
      />
      <kbd className="pointer-events-none absolute top-[7px] right-2 rounded border border-border px-1 text-[11px] text-fg-dim">/</kbd>
      {open ? (
        <div
          id="issue-search-suggestions"
          role="listbox"
          aria-label="Suggestions"
          className="absolute top-[34px] left-0 z-30 w-full max-w-[520px] rounded-md border border-border bg-bg py-1 shadow-lg"
        >
          {items.map((s, i) => (
            <div
              key={s.value}
              id={`issue-search-opt-${i}`}
              role="option"
              tabIndex={-1}
              aria-selected={i === active}
              className={`flex cursor-pointer justify-between gap-4 px-3 py-1 font-mono text-[12.5px] ${i === active ? "bg-hover" : ""}`}
              onMouseDown={(e) => {
                e.preventDefault();
                choose(s);
              }}
            >
              <span className="truncate">{s.value}</span>
              {s.hint ? <span className="shrink-0 font-sans text-[11.5px] text-fg-dim">{s.hint}</span> : null}
            </div>
          ))}
        </div>
      ) : null}
      {error ? (
        <div id="issue-search-error" role="alert" className="mt-1.5 rounded-md border border-danger px-3 py-2">
          <p className="font-medium">{error.message}</p>
          {errorAt !== null ? (
            <pre className="mt-1 overflow-x-auto text-[12px] leading-[1.5]">
              <code>
                {value}
                {"\n"}
                {" ".repeat(errorAt)}^ here (character {errorAt + 1})
              </code>
            </pre>
          ) : null}
        </div>
      ) : null}
    </div>
  );
}
