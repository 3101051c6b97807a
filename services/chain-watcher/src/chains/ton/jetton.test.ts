import { createHash } from "node:crypto";
import { Address, beginCell, Dictionary } from "@ton/core";
import { describe, expect, it } from "vitest";
import { jettonTransferBody, OP, onchainDecimals, readTransferNotification } from "./jetton.ts";

const key = (name: string) => createHash("sha256").update(name).digest();
const snake = (text: string) => beginCell().storeUint(0, 8).storeStringTail(text).endCell();

function onchainContent(fields: Record<string, string>) {
  const dict = Dictionary.empty(Dictionary.Keys.Buffer(32), Dictionary.Values.Cell());
  for (const [name, value] of Object.entries(fields)) dict.set(key(name), snake(value));
  return beginCell().storeUint(0, 8).storeDict(dict).endCell();
}

describe("jetton metadata and messages", () => {
  it("reads decimals from TEP-64 on-chain content, defaulting to 9, and not from off-chain content", () => {
    expect(onchainDecimals(onchainContent({ name: "Tether USD", decimals: "6" }))).toBe(6);
    expect(onchainDecimals(onchainContent({ name: "No decimals field" }))).toBe(9);
    const offchain = beginCell()
      .storeUint(1, 8)
      .storeStringTail("https://example.invalid/meta.json")
      .endCell();
    expect(onchainDecimals(offchain)).toBeUndefined();
  });

  it("writes a TEP-74 transfer and reads a transfer_notification back", () => {
    const destination = Address.parse("0:87d680af8fadae0a9e57fd69617f8b020947c1d00d37eb2ba183d58e30e34e3a");
    const body = jettonTransferBody({
      queryId: 42n,
      amount: 12_500_000n,
      destination,
      responseDestination: destination,
      forwardTonAmount: 1n,
    }).beginParse();
    expect(body.loadUint(32)).toBe(OP.transfer);
    expect(body.loadUintBig(64)).toBe(42n);
    expect(body.loadCoins()).toBe(12_500_000n);
    expect(body.loadAddress().equals(destination)).toBe(true);

    const notification = beginCell()
      .storeUint(7, 64)
      .storeCoins(99n)
      .storeAddress(destination)
      .storeBit(false);
    const read = readTransferNotification(notification.endCell().beginParse());
    expect(read?.queryId).toBe(7n);
    expect(read?.amount).toBe(99n);
    expect(read?.sender.equals(destination)).toBe(true);
    expect(readTransferNotification(beginCell().storeUint(1, 8).endCell().beginParse())).toBeUndefined();
  });
});
