// The sandbox offramp that `npm start` prints and docs/integrator-guide.md walks through: one text for
// both, so the banner and the guide cannot drift apart (sandbox-example.test.ts checks the guide).

/** Sell 5 USDC on Solana for a naira payout to a 10-digit account at Guaranty Trust Bank. */
export const SANDBOX_OFFRAMP = {
  accountNumber: "0123456789",
  bankCode: "000013",
  currency: "NGN",
  chain: "SOLANA",
  mint: "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v",
  amount: 5,
} as const;

/**
 * The three commands of the offramp: create it (keeping its id in `$ORDER`), stand in for the payer's
 * token transfer, look it up. `ramp` and `key` are written in as given: `"$RAMP"` and `"$KEY"` in the
 * guide, the real URL and key in the banner.
 */
export function sandboxOfframpCommands(ramp: string, key: string): [string, string, string] {
  return [
    [
      `ORDER=$(curl -s -X POST "${ramp}/pub/v2/offramp" \\`,
      `  -H "x-api-key: ${key}" -H "content-type: application/json" \\`,
      `  -d '${JSON.stringify(SANDBOX_OFFRAMP)}' \\`,
      "  | tee /dev/stderr | jq -r .id)",
    ].join("\n"),
    [
      `curl -s -X POST "${ramp}/sandbox/v2/offramp/$ORDER/token-deposit" \\`,
      `  -H "x-api-key: ${key}" -H "content-type: application/json" -d '{}'`,
    ].join("\n"),
    `curl -s -H "x-api-key: ${key}" "${ramp}/pub/v2/transaction/$ORDER"`,
  ];
}

/** Which bank code an NGN offramp takes, in the words the banner and the guide both use. */
export const BANK_CODE_FORMAT =
  "`bankCode` is a bank's `code` from `GET /pub/v2/bank?country=NG`: for naira the 6-digit NIBSS " +
  "code (`000013` for Guaranty Trust Bank, not its 3-digit CBN code `058`)";
