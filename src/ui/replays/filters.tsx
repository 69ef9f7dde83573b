/** What the list's filter form sends: each field becomes a term of the replay search. */
export interface ReplayFilterValues {
  query: string;
  project: string;
  user: string;
  url: string;
  release: string;
  environment: string;
  /** minimum duration in seconds */
  minDuration: string;
  errors: boolean;
  dead: boolean;
  rage: boolean;
}

const quote = (v: string) => (/[\s"]/.test(v) ? `"${v.replace(/"/g, '\\"')}"` : v);

/** The search the form's fields and the free query field say together (the issues' query language). */
export function searchOf(f: ReplayFilterValues): string {
  const terms: string[] = [];
  if (f.user) terms.push(`user:${quote(f.user)}`);
  if (f.url) terms.push(`url:${quote(f.url.includes("*") ? f.url : `*${f.url}*`)}`);
  if (f.release) terms.push(`release:${quote(f.release)}`);
  if (f.environment) terms.push(`environment:${quote(f.environment)}`);
  if (/^\d{1,6}$/.test(f.minDuration)) terms.push(`duration:>=${f.minDuration}s`);
  if (f.errors) terms.push("count_errors:>0");
  if (f.dead) terms.push("count_dead_clicks:>0");
  if (f.rage) terms.push("count_rage_clicks:>0");
  if (f.query.trim()) terms.push(f.query.trim());
  return terms.join(" ");
}

/**
 * The filters of the replays list as a plain GET form (works without JavaScript): the search field
 * speaks the issues' query language over replay fields; the rest are shortcuts for common terms.
 */
export function ReplayFilters({
  action,
  values,
  projects,
  error,
}: {
  action: string;
  values: ReplayFilterValues;
  projects: Array<{ slug: string; name: string }>;
  /** the search's parse error, shown at the field */
  error: string | null;
}) {
  const field = "flex min-w-0 flex-col gap-1 text-[12px] text-fg-muted";
  return (
    <form action={action} className="mb-3 flex flex-col gap-2" aria-label="Filter replays">
      <div className="flex gap-2">
        <label htmlFor="replay-query" className="sr-only">
          Search replays
        </label>
        <input
          id="replay-query"
          name="query"
          className="input font-mono"
          defaultValue={values.query}
          placeholder="count_errors:>0 url:*checkout* browser.name:Chrome user.email:…"
          aria-invalid={error ? "true" : undefined}
          aria-describedby={error ? "replay-query-error" : undefined}
        />
        <button type="submit" className="btn btn-primary">
          Search
        </button>
      </div>
      {error ? (
        <p id="replay-query-error" role="alert" className="text-[12.5px] text-danger">
          {error}
        </p>
      ) : null}
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-6">
        {projects.length > 1 ? (
          <label className={field}>
            Project
            <select name="project" defaultValue={values.project} className="input">
              <option value="">All projects</option>
              {projects.map((p) => (
                <option key={p.slug} value={p.slug}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        ) : null}
        <label className={field}>
          User
          <input name="user" defaultValue={values.user} className="input" placeholder="id, email or name" />
        </label>
        <label className={field}>
          URL contains
          <input name="url" defaultValue={values.url} className="input" placeholder="/checkout" />
        </label>
        <label className={field}>
          Release
          <input name="release" defaultValue={values.release} className="input" />
        </label>
        <label className={field}>
          Environment
          <input name="environment" defaultValue={values.environment} className="input" placeholder="production" />
        </label>
        <label className={field}>
          Longer than (s)
          <input name="minDuration" defaultValue={values.minDuration} className="input" inputMode="numeric" pattern="[0-9]*" />
        </label>
      </div>
      <fieldset className="flex flex-wrap items-center gap-x-4 gap-y-1 text-[12.5px]">
        <legend className="sr-only">Only replays with</legend>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" name="errors" value="1" defaultChecked={values.errors} /> Errors
        </label>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" name="dead" value="1" defaultChecked={values.dead} /> Dead clicks
        </label>
        <label className="flex items-center gap-1.5">
          <input type="checkbox" name="rage" value="1" defaultChecked={values.rage} /> Rage clicks
        </label>
      </fieldset>
    </form>
  );
}
