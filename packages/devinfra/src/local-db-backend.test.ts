import { describe, expect, it } from "vitest";
import { localDbBackend, startLocalDatabase } from "./infra.ts";

describe("RAMP_LOCAL_DB", () => {
  it("picks FerretDB's SQLite backend unless PostgreSQL is asked for", () => {
    expect(localDbBackend({})).toBe("sqlite");
    expect(localDbBackend({ RAMP_LOCAL_DB: "" })).toBe("sqlite");
    expect(localDbBackend({ RAMP_LOCAL_DB: "postgresql" })).toBe("postgresql");
  });

  it("refuses a backend it does not know, naming the variable, before starting anything", async () => {
    await expect(
      startLocalDatabase("/nonexistent", undefined, {}, { RAMP_LOCAL_DB: "mysql" }),
    ).rejects.toThrow('RAMP_LOCAL_DB must be one of sqlite, postgresql, not "mysql"');
  });
});
