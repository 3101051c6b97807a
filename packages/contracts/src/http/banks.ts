import { z } from "zod";
import { MAX_ADDRESS_LENGTH } from "../addresses.ts";
import { boundedString, TEXT_MAX } from "../text.ts";

export const BankDto = z
  .object({
    id: z.string(),
    name: z.string(),
    country: z.string(),
    code: z.string(),
    logo: z.string().nullable().optional(),
  })
  .meta({ id: "BankResDto" });
export type BankDto = z.infer<typeof BankDto>;

export const BankQuery = z.strictObject({
  code: boundedString(TEXT_MAX.code).optional(),
  name: boundedString(TEXT_MAX.freeText).optional(),
  country: boundedString(TEXT_MAX.code).optional(),
});
export type BankQuery = z.infer<typeof BankQuery>;

export const PublicBankQuery = z.strictObject({ name: boundedString(TEXT_MAX.freeText).optional() });

export const BankAccountDto = z
  .object({
    id: z.string(),
    accountName: z.string(),
    accountNumber: z.string(),
    bank: z.string(),
    address: z.string(),
  })
  .meta({ id: "BankAccountDto" });
export type BankAccountDto = z.infer<typeof BankAccountDto>;

export const BankAccountQuery = z
  .strictObject({
    address: boundedString(MAX_ADDRESS_LENGTH, { min: 1 }).optional(),
    accountNumber: boundedString(TEXT_MAX.identifier, { min: 1 }).optional(),
  })
  .refine((q) => q.address !== undefined || q.accountNumber !== undefined, {
    message: "one of address or accountNumber must be given",
  });
export type BankAccountQuery = z.infer<typeof BankAccountQuery>;

export const RegisterBankAccountRequest = z
  .strictObject({
    bankCode: boundedString(TEXT_MAX.code, { min: 1 }),
    accountNumber: boundedString(TEXT_MAX.identifier, { min: 1 }),
  })
  .meta({ id: "RegisterBankAccountDto" });
export type RegisterBankAccountRequest = z.infer<typeof RegisterBankAccountRequest>;
