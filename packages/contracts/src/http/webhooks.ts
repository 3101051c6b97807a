import { z } from "zod";
import { WebhookType } from "../enums.ts";
import { boundedString, TEXT_MAX } from "../text.ts";
import { webhookUrl } from "../webhook-urls.ts";

/** "" clears the field; whether a URL may point somewhere private is the dispatcher's call. */
const urlOrEmpty = (field: string) => webhookUrl(field, { orEmpty: true });

export const UpdateWebhookRequest = z
  .strictObject({
    rampWebhookURL: urlOrEmpty("rampWebhookURL").optional(),
    paymentWebhookURL: urlOrEmpty("paymentWebhookURL").optional(),
  })
  .refine((b) => b.rampWebhookURL !== undefined || b.paymentWebhookURL !== undefined, {
    message: "one of rampWebhookURL or paymentWebhookURL must be given",
  })
  .meta({ id: "UpdateWebhookDto" });
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

export const WebhookConfigDto = z
  .object({
    rampWebhookURL: z.string().nullable(),
    paymentWebhookURL: z.string().nullable(),
    webhookSecret: z.string().regex(/^whsec_[0-9a-f]{64}$/),
  })
  .meta({ id: "WebhookConfigDto" });
export type WebhookConfigDto = z.infer<typeof WebhookConfigDto>;

export const WebhookTestQuery = z.strictObject({ type: WebhookType.default("RAMP") });

export const WebhookTestResultDto = z
  .object({
    delivered: z.boolean(),
    type: WebhookType,
    url: z.string(),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    error: z.string().nullable(),
  })
  .meta({ id: "WebhookTestResultDto" });
export type WebhookTestResultDto = z.infer<typeof WebhookTestResultDto>;

/** A delivery-log entry's error for a status never sent because a newer one of its order was delivered first. */
export const SUPERSEDED_DELIVERY = "superseded: a newer status of this order was delivered first";

export const DeliveryAttemptDto = z
  .object({
    id: z.string().describe("This attempt's own id: one entry of the log"),
    deliveryId: z
      .string()
      .describe("The delivery the attempt belongs to, shared by its retries: what redeliver takes"),
    type: WebhookType,
    subjectId: z.string().describe("The order or payment delivered: what `?id=` filters the log by"),
    url: z.string(),
    attempt: z.number().int(),
    delivered: z.boolean(),
    statusCode: z.number().int().nullable(),
    durationMs: z.number().int(),
    error: z.string().nullable(),
    response: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: "WebhookDeliveryAttemptDto" });
export type DeliveryAttemptDto = z.infer<typeof DeliveryAttemptDto>;

/** A delivery's id, from the delivery log. */
export const DeliveryId = boundedString(TEXT_MAX.identifier, { min: 1 });

export const DeliveriesQuery = z.strictObject({
  /** An order's or payment's id: only its deliveries (`subjectId`). */
  id: DeliveryId.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});
