import type { z } from "zod";

/** Renders zod issues as NestJS-style messages, one per invalid field: `{statusCode, message: string[], error}`. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string[] {
  const out: string[] = [];
  for (const issue of issues) {
    const field = issue.path.map(String).join(".");
    switch (issue.code) {
      case "unrecognized_keys":
        for (const key of issue.keys) out.push(`property ${field ? `${field}.` : ""}${key} should not exist`);
        break;
      case "invalid_value":
        out.push(`${field} must be one of the following values: ${issue.values.map(String).join(", ")}`);
        break;
      case "invalid_type":
        out.push(
          issue.input === undefined ? `${field} should not be empty` : `${field} must be a ${issue.expected}`,
        );
        break;
      case "too_small":
        out.push(
          issue.origin === "number"
            ? `${field} must be ${issue.inclusive ? "at least" : "greater than"} ${String(issue.minimum)}`
            : `${field} should not be empty`,
        );
        break;
      case "too_big":
        out.push(
          issue.origin === "string"
            ? `${field} must be at most ${String(issue.maximum)} characters`
            : `${field} must not be greater than ${String(issue.maximum)}`,
        );
        break;
      default:
        out.push(field && !issue.message.startsWith(field) ? `${field} ${issue.message}` : issue.message);
    }
  }
  return out;
}
