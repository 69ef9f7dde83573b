import { redirect } from "next/navigation";
import { SignOutButton } from "@/ui/shell/sign-out-button";
import { currentViewer, services } from "./_lib/server";

export default async function Home() {
  const s = await services();
  if (!(await s.setup.isDone())) redirect("/setup");
  const viewer = await currentViewer();
  if (!viewer) redirect("/login");
  const orgs = await s.orgs.listForViewer(viewer);
  if (orgs.length > 0) redirect(`/${orgs[0].slug}/issues`);
  return (
    <main className="mx-auto mt-24 max-w-md px-6">
      <h1 className="text-base font-semibold">No organization</h1>
      <p className="mt-2 text-fg-muted">
        You are signed in as <span className="font-medium text-fg">{viewer.email}</span> but are not a member of any organization. Ask an
        owner of your Errata to invite you.
      </p>
      <div className="mt-4">
        <SignOutButton />
      </div>
    </main>
  );
}
