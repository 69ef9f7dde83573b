import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { AuthCard } from "@/ui/auth/auth-card";
import { SetupForm } from "@/ui/auth/setup-form";
import { services } from "../_lib/server";

export const metadata: Metadata = { title: "Set up" };

export default async function SetupPage() {
  const s = await services();
  if (await s.setup.isDone()) redirect("/login");
  return (
    <AuthCard
      title="Set up Errata"
      lead="Create the owner account and your first organization. You can invite the rest of your team afterwards."
    >
      <SetupForm />
    </AuthCard>
  );
}
