/** A GET form that narrows a list page to one project (shown only when there are several). */
export function ProjectFilterForm({
  id,
  action,
  projects,
  selected,
}: {
  id: string;
  action: string;
  projects: Array<{ slug: string; name: string }>;
  selected: string;
}) {
  if (projects.length <= 1) return null;
  return (
    <form action={action} className="ml-auto flex items-center gap-2">
      <label htmlFor={id} className="sr-only">
        Project
      </label>
      <select id={id} name="project" defaultValue={selected} className="input h-[30px] w-[180px]">
        <option value="">All projects</option>
        {projects.map((p) => (
          <option key={p.slug} value={p.slug}>
            {p.name}
          </option>
        ))}
      </select>
      <button type="submit" className="btn">
        Filter
      </button>
    </form>
  );
}
