import { zValidator } from "@hono/zod-validator";
import { AppError, formatIssues } from "@ramp/contracts";
import type { ValidationTargets } from "hono";
import type { z } from "zod";

/** zod at the edge, with one hook that shapes every 400 body (message: one string per invalid field). */
export const validate = <T extends z.ZodType, K extends keyof ValidationTargets>(target: K, schema: T) =>
  zValidator(target, schema, (result) => {
    if (!result.success) throw new AppError("VALIDATION", formatIssues(result.error.issues));
  });
