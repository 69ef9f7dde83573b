import type { Metadata } from "next";
import { NotFoundView } from "@/ui/not-found-view";

export const metadata: Metadata = { title: "Not found" };

export default function NotFound() {
  return <NotFoundView />;
}
