import { createHash, randomBytes } from "node:crypto";
import type { ChainFamily } from "@ramp/contracts";
import bs58 from "bs58";
import { getAddress, hexlify } from "ethers";

/** Transaction ids in each family's native spelling, so sandbox data looks like real chain data. */
function txIdFromBytes(family: ChainFamily, bytes: Uint8Array): string {
  switch (family) {
    case "evm":
      return hexlify(bytes.subarray(0, 32));
    case "solana":
      return bs58.encode(bytes.subarray(0, 64));
    case "ton":
      return Buffer.from(bytes.subarray(0, 32)).toString("hex");
  }
}

const sha512 = (text: string) => new Uint8Array(createHash("sha512").update(text).digest());

/** Same input, same id: what a sandbox transfer's signature is derived from (its request id). */
export const deterministicTxId = (family: ChainFamily, seed: string): string =>
  txIdFromBytes(family, sha512(`sandbox-tx:${seed}`));

/** A fresh, unique id for a sandbox-injected deposit. */
export const randomTxId = (family: ChainFamily): string => txIdFromBytes(family, randomBytes(64));

/** The fixed payer every sandbox deposit names as its sender, a valid address of the family. */
export function sandboxSender(family: ChainFamily): string {
  const digest = createHash("sha256").update("sandbox-payer").digest();
  switch (family) {
    case "evm":
      return getAddress(hexlify(digest.subarray(0, 20)));
    case "solana":
      return bs58.encode(digest);
    case "ton":
      return `0:${digest.toString("hex")}`;
  }
}
