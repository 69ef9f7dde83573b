import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard } from "@/ui/auth-card";
import { LoginForm } from "@/ui/login-form";
import { safeNextPath } from "@/ui/safe-next";
import { currentViewer, param, services } from "../_lib/server";

export const metadata: Metadata = { title: "Sign in" };

export default async function LoginPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const s = await services();
  if (!(await s.setup.isDone())) redirect("/setup");
  const next = safeNextPath(param((await searchParams).next));
  if (await currentViewer()) redirect(next ?? "/");
  return (
    <AuthCard title="Sign in to Errata">
      <LoginForm next={next} />
    </AuthCard>
  );
}
