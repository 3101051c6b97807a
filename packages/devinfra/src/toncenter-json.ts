import { type Address, beginCell, Cell, type Message, type Transaction, type TupleItem } from "@ton/core";

/**
 * toncenter v2 JSON shapes (what `@ton/ton`'s HttpApi validates and TonClient reads) built from
 * @ton/core values, and the request stack parsed back. Only `data` (the transaction BOC) and the stack
 * carry meaning for TonClient; the other fields are filled the way toncenter fills them.
 */

const friendly = (a: Address | null | undefined) => a?.toString({ bounceable: true }) ?? "";

function messageJson(m: Message) {
  const info = m.info;
  const body = m.body;
  return {
    "@type": "raw.message",
    source: info.type === "external-in" ? "" : friendly(info.src),
    destination: info.type === "external-out" ? "" : friendly(info.dest),
    value: info.type === "internal" ? info.value.coins.toString() : "0",
    fwd_fee: info.type === "internal" ? info.forwardFee.toString() : "0",
    ihr_fee: info.type === "internal" ? info.ihrFee.toString() : "0",
    created_lt: info.type === "external-in" ? "0" : info.createdLt.toString(),
    body_hash: body.hash().toString("base64"),
    msg_data: { "@type": "msg.dataRaw", body: body.toBoc().toString("base64"), init_state: "" },
  };
}

export function transactionJson(tx: Transaction, account: Address) {
  return {
    "@type": "raw.transaction",
    address: { "@type": "accountAddress", account_address: friendly(account) },
    utime: tx.now,
    data: tx.raw.toBoc().toString("base64"),
    transaction_id: {
      "@type": "internal.transactionId",
      lt: tx.lt.toString(),
      hash: tx.hash().toString("base64"),
    },
    fee: tx.totalFees.coins.toString(),
    storage_fee: "0",
    other_fee: "0",
    ...(tx.inMessage ? { in_msg: messageJson(tx.inMessage) } : {}),
    out_msgs: [...tx.outMessages.values()].map(messageJson),
  };
}

const bytes = (cell: Cell) => cell.toBoc().toString("base64");
const hexNumber = (n: bigint) => (n < 0n ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`);

/** A nested tuple element, in the `tvm.stackEntry*` form toncenter uses inside tuples. */
function stackEntry(item: TupleItem): object {
  switch (item.type) {
    case "int":
      return {
        "@type": "tvm.stackEntryNumber",
        number: { "@type": "tvm.numberDecimal", number: item.value.toString() },
      };
    case "cell":
      return { "@type": "tvm.stackEntryCell", cell: { "@type": "tvm.cell", bytes: bytes(item.cell) } };
    case "slice":
    case "builder":
      return { "@type": "tvm.stackEntrySlice", slice: { "@type": "tvm.slice", bytes: bytes(item.cell) } };
    case "tuple":
      return {
        "@type": "tvm.stackEntryTuple",
        tuple: { "@type": "tvm.tuple", elements: item.items.map(stackEntry) },
      };
    default:
      throw new Error(`stack entry ${item.type} is not served`);
  }
}

/** A top-level get-method result item, in toncenter's `[type, value]` form. */
export function stackItemJson(item: TupleItem): unknown[] {
  switch (item.type) {
    case "int":
      return ["num", hexNumber(item.value)];
    case "null":
      return ["null", null];
    case "cell":
      return ["cell", { bytes: bytes(item.cell), object: {} }];
    case "slice":
      return ["slice", { bytes: bytes(item.cell), object: {} }];
    case "builder":
      return ["builder", { bytes: bytes(item.cell), object: {} }];
    case "tuple":
      return ["tuple", { "@type": "tvm.tuple", elements: item.items.map(stackEntry) }];
    default:
      throw new Error(`stack item ${item.type} is not served`);
  }
}

/** A runGetMethod request stack (`["num", "5"]`, `["tvm.Slice", boc]`, ...) as TupleItems. */
export function parseRequestStack(stack: unknown): TupleItem[] {
  if (!Array.isArray(stack)) return [];
  return stack.map((entry): TupleItem => {
    const [kind, value] = entry as [string, string];
    const cell = () => Cell.fromBoc(Buffer.from(value, "base64"))[0] ?? beginCell().endCell();
    switch (kind) {
      case "num":
        return { type: "int", value: value.startsWith("-") ? -BigInt(value.slice(1)) : BigInt(value) };
      case "tvm.Cell":
        return { type: "cell", cell: cell() };
      case "tvm.Slice":
        return { type: "slice", cell: cell() };
      case "tvm.Builder":
        return { type: "builder", cell: cell() };
      default:
        throw new Error(`request stack item ${kind} is not served`);
    }
  });
}
