import { zValidator } from "@hono/zod-validator";
import { AppError, formatIssues } from "@ramp/contracts";
import type { MiddlewareHandler, ValidationTargets } from "hono";
import type { z } from "zod";
import { readJsonBody } from "./body.ts";
import type { GatewayEnv } from "./env.ts";

const fail = (issues: readonly z.core.$ZodIssue[]) => new AppError("VALIDATION", formatIssues(issues));

/**
 * zod at the edge for query and path parameters, with one hook that shapes every 400 body
 * (message: one string per invalid field). Bodies go through `validateJson`.
 */
export const validate = <T extends z.ZodType, K extends Exclude<keyof ValidationTargets, "json">>(
  target: K,
  schema: T,
) =>
  zValidator(target, schema, (result) => {
    if (!result.success) throw fail(result.error.issues);
  });

/**
 * A JSON body: size already bounded, media type checked, parsed losslessly and validated, so amount
 * fields reach their schema as the number's source text.
 */
export const validateJson = <T extends z.ZodType>(
  schema: T,
): MiddlewareHandler<GatewayEnv, string, { in: { json: z.input<T> }; out: { json: z.output<T> } }> =>
  async function validateJson(c, next) {
    const result = schema.safeParse(await readJsonBody(c));
    if (!result.success) throw fail(result.error.issues);
    c.req.addValidatedData("json", result.data as object);
    await next();
  };
