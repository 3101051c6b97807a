import { OperatorRole } from "@ramp/contracts/enums";
import { api } from "../api.ts";
import { PeoplePage } from "../people.tsx";
import { useUser } from "../session.tsx";

export function OperatorsPage() {
  return (
    <PeoplePage
      title="Operators"
      noun="operator"
      roles={OperatorRole.options}
      firstRole="operator"
      manages={useUser().role === "admin"}
      list={(cursor) => api.operators.list({ cursor })}
      create={(p) => api.operators.create(p)}
      remove={(id) => api.operators.remove(id)}
    />
  );
}
