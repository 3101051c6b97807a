import { z } from "zod";
import { jsonInteger } from "../decimals.ts";
import { Currency } from "../enums.ts";
import { boundedString, shapedString, TEXT_MAX } from "../text.ts";
import { ConsoleListQuery, consolePage } from "./console.ts";
import { ObjectIdString } from "./transactions.ts";
import { DeliveryAttemptDto } from "./webhooks.ts";

/** A key as the console lists it: its first 8 characters, never the key. */
export const ApiKeyDto = z.object({
  id: z.string(),
  prefix: z.string(),
  name: z.string(),
  createdAt: z.string(),
  revokedAt: z.string().nullable(),
  rampWebhookURL: z.string().nullable(),
  paymentWebhookURL: z.string().nullable(),
});
export type ApiKeyDto = z.infer<typeof ApiKeyDto>;
export const ApiKeyPage = consolePage(ApiKeyDto);

/** Operators name the business; a member's own is implied. */
export const KeyListQuery = ConsoleListQuery.extend({ businessId: ObjectIdString.optional() });
export const CreateKeyRequest = z.strictObject({
  name: boundedString(100, { min: 1 }),
  businessId: ObjectIdString.optional(),
});
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;

/** Shown this once: only the key's hash is kept. */
export const ConsoleCreatedKeyDto = z.object({
  id: z.string(),
  apiKey: z.string(),
  webhookSecret: z.string(),
});

export const KeyParams = z.strictObject({ id: ObjectIdString });

export const BusinessDto = z.object({
  id: z.string(),
  name: z.string(),
  feeBps: z.number().int(),
  suspended: z.boolean(),
  createdAt: z.string(),
});
export type BusinessDto = z.infer<typeof BusinessDto>;
export const BusinessPage = consolePage(BusinessDto);

export const UpdateBusinessRequest = z
  .strictObject({ feeBps: jsonInteger(5000).optional(), suspended: z.boolean().optional() })
  .refine((b) => b.feeBps !== undefined || b.suspended !== undefined, "give feeBps or suspended");
export type UpdateBusinessRequest = z.infer<typeof UpdateBusinessRequest>;

/** One change of a market rate, newest first; rates as exact decimal strings, null when removed. */
export const RateHistoryEntryDto = z.object({
  id: z.string(),
  currency: Currency,
  change: z.enum(["set", "delete"]),
  onRamp: z.string().nullable(),
  offRamp: z.string().nullable(),
  at: z.string(),
});
export type RateHistoryEntryDto = z.infer<typeof RateHistoryEntryDto>;
export const RateHistoryPage = consolePage(RateHistoryEntryDto);
export const RateHistoryQuery = ConsoleListQuery.extend({ currency: Currency.optional() });
export type RateHistoryQuery = z.infer<typeof RateHistoryQuery>;

/** The signed-in person's password again: revealing a secret is worth a second proof. */
export const RevealSecretRequest = z.strictObject({ password: boundedString(256, { min: 1 }) });
export const WebhookSecretDto = z.object({ webhookSecret: z.string() });

export const ROTATION_OVERLAP_MAX_HOURS = 72;
export const RotateSecretRequest = z.strictObject({
  overlapHours: jsonInteger(ROTATION_OVERLAP_MAX_HOURS).default(24),
});
/** `previousValidUntil` null when the old secret stopped at once (`overlapHours: 0`). */
export const RotatedSecretDto = z.object({
  webhookSecret: z.string(),
  previousValidUntil: z.string().nullable(),
});
export type RotatedSecretDto = z.infer<typeof RotatedSecretDto>;

/** The delivery log of a business's keys; `status` is `delivered` or `failed` (the attempt's outcome). */
export const ConsoleDeliveriesQuery = ConsoleListQuery.extend({
  businessId: ObjectIdString.optional(),
  keyId: ObjectIdString.optional(),
  orderId: boundedString(TEXT_MAX.identifier).optional(),
  status: z.enum(["delivered", "failed"]).optional(),
});
export type ConsoleDeliveriesQuery = z.infer<typeof ConsoleDeliveriesQuery>;
export const ConsoleDeliveryDto = DeliveryAttemptDto.extend({ keyId: z.string() });
export const ConsoleDeliveryPage = consolePage(ConsoleDeliveryDto);
export type ConsoleDeliveryPage = z.infer<typeof ConsoleDeliveryPage>;
/** The delivery id of the log (`deliveryId`), which each attempt of one delivery shares. */
export const DeliveryParams = z.strictObject({
  id: shapedString(TEXT_MAX.identifier, /^(test_)?[0-9a-f]{24}$/, "id must be a delivery id"),
});
