import { describe, expect, it } from "vitest";
import { localDbBackend, startLocalDatabase } from "./infra.ts";

describe("RAMP_LOCAL_DB", () => {
  it("picks PostgreSQL where it can run, SQLite where it cannot, and what the variable names either way", () => {
    const can = () => true;
    const cannot = () => false;
    expect(localDbBackend({}, can)).toBe("postgresql");
    expect(localDbBackend({ RAMP_LOCAL_DB: "" }, can)).toBe("postgresql");
    expect(localDbBackend({}, cannot)).toBe("sqlite");
    expect(localDbBackend({ RAMP_LOCAL_DB: "sqlite" }, can)).toBe("sqlite");
    expect(localDbBackend({ RAMP_LOCAL_DB: "postgresql" }, cannot)).toBe("postgresql");
  });

  it("refuses a backend it does not know, naming the variable, before starting anything", async () => {
    await expect(
      startLocalDatabase("/nonexistent", undefined, {}, { RAMP_LOCAL_DB: "mysql" }),
    ).rejects.toThrow('RAMP_LOCAL_DB must be one of sqlite, postgresql, not "mysql"');
  });
});
