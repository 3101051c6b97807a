import { z } from "zod";

/**
 * The closed set of failures that cross a service boundary. Each maps to exactly one HTTP status;
 * an unmapped code is a compile error (Record over the union).
 */
export const ERROR_CODES = [
  "VALIDATION",
  "BAD_REQUEST",
  "UNAUTHORIZED",
  "FORBIDDEN",
  "NOT_FOUND",
  "CONFLICT",
  "UNPROCESSABLE",
  "RATE_LIMITED",
  "PAYLOAD_TOO_LARGE",
  "UNSUPPORTED_MEDIA_TYPE",
  "UNAVAILABLE",
  "INTERNAL",
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

export const errorHttpStatus: Record<ErrorCode, number> = {
  VALIDATION: 400,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  UNPROCESSABLE: 422,
  RATE_LIMITED: 429,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  UNAVAILABLE: 503,
  INTERNAL: 503,
};

export const httpStatusText: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  409: "Conflict",
  413: "Payload Too Large",
  415: "Unsupported Media Type",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  503: "Service Unavailable",
};

/** NestJS-style error body `{statusCode, message, error}`. Validation failures carry one message per invalid field. */
export const ErrorBody = z
  .object({
    statusCode: z.number().int(),
    message: z.union([z.string(), z.array(z.string())]),
    error: z.string(),
  })
  .meta({ id: "ErrorBody" });
export type ErrorBody = z.infer<typeof ErrorBody>;

/** The failure half of every request/reply envelope. */
export const RpcError = z.object({
  code: z.enum(ERROR_CODES),
  message: z.union([z.string(), z.array(z.string())]),
});
export type RpcError = z.infer<typeof RpcError>;

/** Thrown by domain code; carried over NATS as an RpcError; mapped to HTTP once, in the gateway. */
export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly detail: string | string[],
  ) {
    super(Array.isArray(detail) ? detail.join("; ") : detail);
    this.name = "AppError";
  }
  get status(): number {
    return errorHttpStatus[this.code];
  }
}

export const badRequest = (message: string | string[]) => new AppError("BAD_REQUEST", message);
export const forbidden = (message = "Forbidden") => new AppError("FORBIDDEN", message);
export const notFound = (message: string) => new AppError("NOT_FOUND", message);
export const unavailable = (message: string) => new AppError("UNAVAILABLE", message);

export function errorBody(status: number, message: string | string[]): ErrorBody {
  return { statusCode: status, message, error: httpStatusText[status] ?? "Error" };
}
