import type { ExceptionDto } from "@ramp/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signedInOperator } from "./support/console-operator.ts";
import { eventually, type Stack, startStack } from "./support/stack.ts";
import { ETH_USDC, EVM_RECIPIENT, sandboxChainEnv } from "./support/tokens.ts";
import { type Receiver, receiver } from "./support/webhook-receiver.ts";

/**
 * A webhook URL that fails every attempt for WEBHOOK_DISABLE_AFTER_HOURS (here about two seconds) is
 * paused: nothing more is sent to it, its deliveries wait, a `webhook-endpoint-failing` exception opens;
 * saving the URL again, or resolving the exception, resumes it and what waited goes out, each order's
 * statuses in order.
 */
let stack: Stack;
let hook: Receiver;
let biz: { apiKey: string; webhookSecret: string };
let failing = true;
let ops: Record<string, string>;

beforeAll(async () => {
  hook = await receiver(() => ({ status: failing ? 500 : 200 }));
  stack = await startStack({
    serviceEnv: {
      "chain-watcher": sandboxChainEnv,
      "webhook-dispatcher": {
        WEBHOOK_DISABLE_AFTER_HOURS: "0.0006",
        // Retries enough that none runs out before the pause, even on a loaded machine.
        WEBHOOK_RETRY_SCHEDULE: Array(200).fill("0.3").join(","),
        WEBHOOK_PAUSED_RECHECK_MS: "300",
      },
    },
  });
  await stack.setRate("NGN", 1650, 1600);
  biz = await stack.createBusiness("Flaky Receiver Co");
  hook.setSecret(biz.webhookSecret);
  expect(
    (await stack.client(biz.apiKey).patch("/pub/v2/webhook", { rampWebhookURL: `${hook.url}/ramp` })).status,
  ).toBe(200);
  ops = await signedInOperator(stack.url);
});
afterAll(async () => {
  await stack?.close();
  await hook?.close();
});

const consoleCall = (method: string, path: string, body?: unknown) =>
  stack.request(method, `/console/v1${path}`, {
    body,
    headers: ops,
  });

async function paidOnramp(): Promise<string> {
  const { body: tx } = await stack.client(biz.apiKey).post("/pub/v2/onramp", {
    currency: "NGN",
    chain: "ETHEREUM",
    mint: ETH_USDC,
    recipient: EVM_RECIPIENT,
    amount: 3,
  });
  await stack.client(biz.apiKey).post(`/sandbox/v2/onramp/${tx.id}/fiat-deposit`, {});
  return tx.id as string;
}

const openFailing = () =>
  eventually(async () => {
    const r = await consoleCall("GET", "/exceptions?kind=webhook-endpoint-failing&status=open");
    return (r.body.data as ExceptionDto[])[0];
  }, 60_000);

/** Attempts stop reaching the receiver: none arrives for a while. */
async function quiet(): Promise<number> {
  return eventually(
    async () => {
      const before = hook.got.length;
      await new Promise((r) => setTimeout(r, 1_500));
      return hook.got.length === before ? before : undefined;
    },
    60_000,
    0,
  );
}

const delivered = (id: string) =>
  hook.got.filter((g) => g.body.id === id && g.answered === 200).map((g) => g.body.status as string);

describe("a webhook endpoint failing for too long", () => {
  it("is paused, its deliveries wait, and saving the URL again sends them in order", async () => {
    const first = await paidOnramp();
    const exception = await openFailing();
    expect(exception.detail).toContain(`${hook.url}/ramp`);
    const sent = await quiet();
    // Paused: a new order's statuses are not attempted either.
    const second = await paidOnramp();
    await new Promise((r) => setTimeout(r, 1_500));
    expect(hook.got.length).toBe(sent);

    failing = false;
    const saved = await stack
      .client(biz.apiKey)
      .patch("/pub/v2/webhook", { rampWebhookURL: `${hook.url}/ramp` });
    expect(saved.status).toBe(200);
    await eventually(
      async () => (delivered(first).length === 2 && delivered(second).length === 2 ? true : undefined),
      60_000,
    );
    expect(delivered(first)).toEqual(["PROCESSING", "COMPLETED"]);
    expect(delivered(second)).toEqual(["PROCESSING", "COMPLETED"]);
    // Saving the URL closed the exception.
    await eventually(async () => {
      const r = await consoleCall("GET", "/exceptions?kind=webhook-endpoint-failing&status=resolved");
      return (r.body.data as ExceptionDto[]).some((e) => e.id === exception.id) ? true : undefined;
    }, 60_000);
  });

  it("fails again later: a new exception, and resolving it resumes the endpoint", async () => {
    failing = true;
    const third = await paidOnramp();
    const exception = await openFailing();
    await quiet();
    failing = false;
    expect(
      (await consoleCall("POST", `/exceptions/${exception.id}/resolve`, { note: "receiver fixed" })).status,
    ).toBe(204);
    await eventually(async () => (delivered(third).length === 2 ? true : undefined), 60_000);
    expect(delivered(third)).toEqual(["PROCESSING", "COMPLETED"]);
  });
});
