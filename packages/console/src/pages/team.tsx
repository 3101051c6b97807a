import { MemberRole } from "@ramp/contracts/enums";
import { api } from "../api.ts";
import { PeoplePage } from "../people.tsx";
import { isOwner, useUser } from "../session.tsx";

export function TeamPage() {
  return (
    <PeoplePage
      title="Team"
      noun="member"
      roles={MemberRole.options}
      firstRole="developer"
      manages={isOwner(useUser())}
      list={(cursor) => api.members.list({ cursor })}
      create={(p) => api.members.create(p)}
      remove={(id) => api.members.remove(id)}
    />
  );
}
