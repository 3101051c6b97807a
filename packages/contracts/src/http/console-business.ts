import { z } from "zod";
import { BankAccountDto, RegisterBankAccountRequest } from "./banks.ts";
import { CONSOLE_PAGE_MAX, consolePage } from "./console.ts";
import { KeyListQuery } from "./console-keys.ts";
import { PaymentDto } from "./payments.ts";
import { ObjectIdString } from "./transactions.ts";

/** A list of one business's things: operators name the business; a member's own is implied. */
export const BusinessListQuery = KeyListQuery;
export type BusinessListQuery = z.infer<typeof BusinessListQuery>;

export const BankAccountPage = consolePage(BankAccountDto);
export type BankAccountPage = z.infer<typeof BankAccountPage>;
/** The public registration's body; operators add the business. */
export const ConsoleBankAccountRequest = RegisterBankAccountRequest.extend({
  businessId: ObjectIdString.optional(),
});
export type ConsoleBankAccountRequest = z.infer<typeof ConsoleBankAccountRequest>;

export const PaymentPage = consolePage(PaymentDto);
export type PaymentPage = z.infer<typeof PaymentPage>;

/** One page of a business's records, newest first by `_id`, after the `_id` the cursor names. */
export const BusinessPageRequest = z.object({
  businessId: z.string(),
  limit: z.number().int().min(1).max(CONSOLE_PAGE_MAX),
  cursor: z.string().optional(),
});
export type BusinessPageRequest = z.infer<typeof BusinessPageRequest>;
