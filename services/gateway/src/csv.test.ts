import { sampleTransaction } from "@ramp/contracts";
import { describe, expect, it } from "vitest";
import { csvField, csvRow, plainNumber, transactionCsvHeader, transactionCsvRow } from "./csv.ts";

describe("CSV (RFC 4180)", () => {
  it("leaves plain fields alone and quotes those with a comma, quote, CR or LF", () => {
    expect(csvField("plain text")).toBe("plain text");
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("line\nbreak")).toBe('"line\nbreak"');
    expect(csvField("cr\rhere")).toBe('"cr\rhere"');
    expect(csvField("")).toBe("");
  });

  it("ends every record with CRLF", () => {
    expect(csvRow(["a", 1, 'x"y'])).toBe('a,1,"x""y"\r\n');
  });

  it("writes numbers as JSON does, but never with an exponent", () => {
    expect([12.5, 16000, 0, 6.060606, -3].map(plainNumber)).toEqual(["12.5", "16000", "0", "6.060606", "-3"]);
    expect(plainNumber(1e-7)).toBe("0.0000001");
    expect(plainNumber(1.5e-7)).toBe("0.00000015");
    expect(plainNumber(-2.25e-9)).toBe("-0.00000000225");
    expect(plainNumber(1e21)).toBe("1000000000000000000000");
    expect(plainNumber(1.2345e22)).toBe("12345000000000000000000");
  });

  it("writes the Transaction fields in their documented order, userExternalId last", () => {
    expect(transactionCsvHeader()).toBe(
      "id,address,signature,mint,currency,amount,usdcAmount,fiatAmount,sender,recipient,rate,status," +
        "transactionType,createdAt,accountNumber,accountName,bank,fee,chain,userExternalId\r\n",
    );
    const tx = sampleTransaction({ userExternalId: 'ext,"1"', amount: 1e-7 });
    const row = transactionCsvRow(tx);
    expect(row.startsWith(`${tx.id},,${tx.signature},`)).toBe(true);
    expect(row).toContain(",0.0000001,");
    expect(row.endsWith(`,SOLANA,"ext,""1"""\r\n`)).toBe(true);
  });
});
