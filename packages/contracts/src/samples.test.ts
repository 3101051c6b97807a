import { describe, expect, it } from "vitest";
import { PaymentDto } from "./http/payments.ts";
import { TransactionDto } from "./http/transactions.ts";
import { samplePayment, sampleTransaction } from "./samples.ts";

describe("test-send samples", () => {
  it("have exactly the shapes of real deliveries", () => {
    const tx = sampleTransaction();
    expect(TransactionDto.strict().parse(tx)).toEqual(tx);
    const pay = samplePayment();
    expect(PaymentDto.strict().parse(pay)).toEqual(pay);
    expect(pay.status).toBe("SUCCESSFUL");
  });
});
