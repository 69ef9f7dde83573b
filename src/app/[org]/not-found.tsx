import { NotFoundView } from "@/ui/not-found-view";

export default function OrgNotFound() {
  return <NotFoundView />;
}
