import { type Address, getTransactionDecoder, type Lamports } from "@solana/kit";
import {
  type Commitment,
  Connection,
  type Keypair,
  type PublicKey,
  Transaction,
  type TransactionInstruction,
  VersionedTransaction,
} from "@solana/web3.js";
import bs58 from "bs58";
import { FailedTransactionMetadata, LiteSVM, type TransactionMetadata } from "litesvm";
import { type JsonHttpServer, startJsonHttpServer } from "./json-http-server.ts";
import { lamportsOf, parsedInstruction, tokenBalances } from "./solana-json-parsed.ts";

/**
 * A Solana node for tests: LiteSVM executes the transactions, this class keeps what LiteSVM does not —
 * which transactions landed, in which order, touching which accounts — and answers the JSON-RPC methods
 * chain-watcher's Solana adapter calls, in a node's wire format. One implementation serves both the
 * in-process `Connection` of the adapter tests and the loopback HTTP endpoint of the e2e tests.
 *
 * LiteSVM has no forks, so everything that lands is final: statuses say `finalized` at any commitment.
 */

const decoder = getTransactionDecoder();
/** LiteSVM's default fee per signature; priority fees are not modelled. */
const LAMPORTS_PER_SIGNATURE = 5_000;
/** How many slots a node treats a blockhash as recent; only used for lastValidBlockHeight. */
const BLOCKHASH_SLOTS = 150;

interface Landed {
  signature: string;
  slot: number;
  blockTime: number;
  err: object | null;
  /** The getTransaction answer (encoding jsonParsed). */
  parsed: object;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** LiteSVM's instruction errors in the node's JSON shape; anything else means "did not land". */
function instructionError(failed: FailedTransactionMetadata): object | undefined {
  const err: unknown = failed.err();
  if (typeof err !== "object" || err === null || !("index" in err) || !("err" in err)) return undefined;
  const { index } = err as { index: number };
  const inner: unknown = (err as { err(): unknown }).err();
  const detail =
    typeof inner === "object" && inner !== null && "code" in inner
      ? { Custom: (inner as { code: number }).code }
      : String(inner);
  return { InstructionError: [index, detail] };
}

export class LiteSvmNode {
  readonly svm: LiteSVM;
  #slot = 1;
  readonly #landed = new Map<string, Landed>();
  /** Oldest first, per account key, as getSignaturesForAddress needs them (reversed). */
  readonly #byAddress = new Map<string, string[]>();

  constructor(svm = new LiteSVM()) {
    this.svm = svm;
  }

  get slot(): number {
    return this.#slot;
  }

  airdrop(to: PublicKey | string, lamports: bigint): void {
    const address = (typeof to === "string" ? to : to.toBase58()) as Address;
    const result = this.svm.airdrop(address, lamports as Lamports);
    if (result instanceof FailedTransactionMetadata) throw new Error(`airdrop failed: ${result.toString()}`);
  }

  /**
   * Executes signed wire bytes (legacy or v0 without lookup tables). A transaction failing inside an
   * instruction lands with its error, as on a cluster; one LiteSVM refuses outright (bad blockhash or
   * signature, duplicate, unpayable fee) never lands and is reported through `rejected`.
   */
  execute(bytes: Uint8Array): { signature: string; rejected?: FailedTransactionMetadata } {
    const tx = VersionedTransaction.deserialize(bytes);
    const message = tx.message;
    if (message.addressTableLookups.length > 0)
      throw new RpcError(-32602, "address lookup tables are not served");
    const first = tx.signatures[0];
    if (!first) throw new RpcError(-32602, "unsigned transaction");
    const signature = bs58.encode(first);
    const keys = message.staticAccountKeys.map((k) => k.toBase58());
    const preBalances = lamportsOf(this.svm, keys);
    const preTokenBalances = tokenBalances(this.svm, keys);

    const result = this.svm.sendTransaction(decoder.decode(bytes));
    let err: object | null = null;
    let meta: TransactionMetadata = result as TransactionMetadata;
    if (result instanceof FailedTransactionMetadata) {
      const landedWith = instructionError(result);
      if (!landedWith) return { signature, rejected: result };
      err = landedWith;
      meta = result.meta();
    }

    const resolve = (indexes: ArrayLike<number>) => Array.from(indexes, (i) => keys[i] ?? "");
    const instruction = (programIdIndex: number, accounts: ArrayLike<number>, data: Uint8Array) =>
      parsedInstruction(keys[programIdIndex] ?? "", resolve(accounts), data);
    const innerInstructions = meta
      .innerInstructions()
      .map((list, index) => ({
        index,
        instructions: list.map((inner) => {
          const ix = inner.instruction();
          return {
            ...instruction(ix.programIdIndex(), ix.accounts(), ix.data()),
            stackHeight: inner.stackHeight(),
          };
        }),
      }))
      .filter((group) => group.instructions.length > 0);

    this.#slot += 1;
    const slot = this.#slot;
    const blockTime = Math.floor(Date.now() / 1000);
    const parsed = {
      slot,
      blockTime,
      version: message.version,
      transaction: {
        signatures: tx.signatures.map((s) => bs58.encode(s)),
        message: {
          accountKeys: keys.map((pubkey, i) => ({
            pubkey,
            signer: message.isAccountSigner(i),
            writable: message.isAccountWritable(i),
            source: "transaction",
          })),
          instructions: message.compiledInstructions.map((ix) => ({
            ...instruction(ix.programIdIndex, ix.accountKeyIndexes, ix.data),
            stackHeight: null,
          })),
          recentBlockhash: message.recentBlockhash,
          ...(message.version === 0 ? { addressTableLookups: [] } : {}),
        },
      },
      meta: {
        err,
        status: err ? { Err: err } : { Ok: null },
        fee: LAMPORTS_PER_SIGNATURE * message.header.numRequiredSignatures,
        preBalances,
        postBalances: lamportsOf(this.svm, keys),
        preTokenBalances,
        postTokenBalances: tokenBalances(this.svm, keys),
        innerInstructions,
        logMessages: meta.logs(),
        rewards: [],
        loadedAddresses: { readonly: [], writable: [] },
        computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
      },
    };
    this.#landed.set(signature, { signature, slot, blockTime, err, parsed });
    for (const key of new Set(keys)) {
      const list = this.#byAddress.get(key) ?? [];
      list.push(signature);
      this.#byAddress.set(key, list);
    }
    return { signature };
  }

  /** Signs and runs instructions as one real transaction (setup: mints, funding, payments). */
  run(payer: Keypair, signers: Keypair[], ...ixs: TransactionInstruction[]): string {
    const tx = new Transaction({ feePayer: payer.publicKey, recentBlockhash: this.svm.latestBlockhash() });
    tx.add(...ixs).sign(payer, ...signers);
    const { signature, rejected } = this.execute(tx.serialize());
    const landed = this.#landed.get(signature);
    if (rejected || landed?.err) {
      throw new Error(`transaction failed: ${rejected?.toString() ?? JSON.stringify(landed?.err)}`);
    }
    return signature;
  }

  /** Answers one JSON-RPC call (method and positional params), or throws RpcError. */
  call(method: string, params: unknown[]): unknown {
    const context = { slot: this.#slot };
    const config = (i: number) => (params[i] ?? {}) as Record<string, unknown>;
    switch (method) {
      case "getAccountInfo": {
        const encoding = config(1).encoding ?? "base58";
        if (encoding !== "base64") throw new RpcError(-32602, `encoding ${String(encoding)} is not served`);
        const account = this.svm.getAccount(String(params[0]) as Address);
        if (!account.exists) return { context, value: null };
        const value = {
          data: [Buffer.from(account.data).toString("base64"), "base64"],
          executable: account.executable,
          lamports: Number(account.lamports),
          owner: account.programAddress,
          rentEpoch: 0,
          space: account.data.length,
        };
        return { context, value };
      }
      case "getSlot":
        return this.#slot;
      case "getMinimumBalanceForRentExemption":
        return Number(this.svm.minimumBalanceForRentExemption(BigInt(Number(params[0]))));
      case "getLatestBlockhash":
        return {
          context,
          value: {
            blockhash: this.svm.latestBlockhash(),
            lastValidBlockHeight: this.#slot + BLOCKHASH_SLOTS,
          },
        };
      case "isBlockhashValid":
        // LiteSVM accepts only its latest blockhash; expireBlockhash() moves it on.
        return { context, value: params[0] === this.svm.latestBlockhash() };
      case "sendTransaction":
        return this.#send(String(params[0]), config(1));
      case "getSignatureStatuses": {
        const signatures = (params[0] ?? []) as string[];
        const value = signatures.map((s) => {
          const landed = this.#landed.get(s);
          if (!landed) return null;
          return { slot: landed.slot, confirmations: null, err: landed.err, confirmationStatus: "finalized" };
        });
        return { context, value };
      }
      case "getSignaturesForAddress":
        return this.#signaturesFor(String(params[0]), config(1));
      case "getTransaction": {
        const encoding = config(1).encoding ?? "json";
        if (encoding !== "jsonParsed")
          throw new RpcError(-32602, `encoding ${String(encoding)} is not served`);
        return this.#landed.get(String(params[0]))?.parsed ?? null;
      }
      default:
        throw new RpcError(-32601, "Method not found");
    }
  }

  #send(wire: string, config: Record<string, unknown>): string {
    const bytes = config.encoding === "base64" ? Buffer.from(wire, "base64") : bs58.decode(wire);
    const { signature, rejected } = this.execute(bytes);
    if (!rejected) return signature;
    const reason = rejected.toString();
    if (/AlreadyProcessed/.test(reason)) {
      // What a node answers to a duplicate when it does not just drop it.
      throw new RpcError(
        -32002,
        "Transaction simulation failed: This transaction has already been processed",
      );
    }
    // Without preflight a node forwards the transaction and answers its signature; it then never lands.
    if (config.skipPreflight === true) return signature;
    throw new RpcError(-32002, `Transaction simulation failed: ${reason}`, {
      logs: rejected.meta().logs(),
    });
  }

  #signaturesFor(address: string, config: Record<string, unknown>) {
    const limit = typeof config.limit === "number" ? config.limit : 1000;
    let list = [...(this.#byAddress.get(address) ?? [])].reverse();
    if (typeof config.before === "string") {
      const at = list.indexOf(config.before);
      list = at < 0 ? [] : list.slice(at + 1);
    }
    if (typeof config.until === "string") {
      const at = list.indexOf(config.until);
      if (at >= 0) list = list.slice(0, at);
    }
    return list.slice(0, limit).map((signature) => {
      const landed = this.#landed.get(signature) as Landed;
      return {
        signature,
        slot: landed.slot,
        err: landed.err,
        memo: null,
        blockTime: landed.blockTime,
        confirmationStatus: "finalized",
      };
    });
  }

  /** A JSON-RPC 2.0 request body (single or batch) → the response body. */
  handle(body: unknown): unknown {
    if (Array.isArray(body)) return body.map((one) => this.handle(one));
    const {
      id = null,
      method,
      params = [],
    } = (body ?? {}) as { id?: unknown; method?: string; params?: unknown[] };
    try {
      return { jsonrpc: "2.0", id, result: this.call(String(method), params) };
    } catch (err) {
      const e = err instanceof RpcError ? err : new RpcError(-32603, String(err));
      return {
        jsonrpc: "2.0",
        id,
        error: { code: e.code, message: e.message, ...(e.data ? { data: e.data } : {}) },
      };
    }
  }
}

/** A web3.js `Connection` whose requests reach `node` in-process: the real client, no HTTP hop. */
export function liteSvmConnection(node: LiteSvmNode, commitment: Commitment = "finalized"): Connection {
  return new Connection("http://litesvm.invalid", {
    commitment,
    fetch: async (_url, init) => {
      const answer = node.handle(JSON.parse(String(init?.body)));
      return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
    },
  });
}

/** `node` as a Solana JSON-RPC endpoint on 127.0.0.1 (what `RPC_URL_SOLANA` points at). */
export function startLiteSvmRpcServer(node: LiteSvmNode): Promise<JsonHttpServer> {
  return startJsonHttpServer(async (body) => ({ status: 200, body: node.handle(body) }));
}
export type { JsonHttpServer } from "./json-http-server.ts";
