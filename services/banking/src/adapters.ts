import type { SandboxPart } from "@ramp/runtime";
import { createSandboxIdentityProvider, type IdentityProvider } from "./identity/identity-provider.ts";
import type { BankRail } from "./rails/bank-rail.ts";
import { createSandboxRail } from "./rails/sandbox-rail.ts";

interface AdapterChoice<T> {
  create(): T;
  /** A sandbox implementation moves no real money and checks no real identity: refused in production. */
  sandbox: boolean;
}

/**
 * The one place banking's adapters are chosen, by BANK_RAIL and IDENTITY_PROVIDER. Only sandbox
 * implementations ship, so RAMP_SANDBOX=false refuses to start until a real one is added here.
 */
export const BANK_RAILS = {
  sandbox: { create: createSandboxRail, sandbox: true },
} as const satisfies Record<string, AdapterChoice<BankRail>>;

export const IDENTITY_PROVIDERS = {
  sandbox: { create: createSandboxIdentityProvider, sandbox: true },
} as const satisfies Record<string, AdapterChoice<IdentityProvider>>;

export type BankRailName = keyof typeof BANK_RAILS;
export type IdentityProviderName = keyof typeof IDENTITY_PROVIDERS;
export const BANK_RAIL_NAMES = Object.keys(BANK_RAILS) as [BankRailName, ...BankRailName[]];
export const IDENTITY_PROVIDER_NAMES = Object.keys(IDENTITY_PROVIDERS) as [
  IdentityProviderName,
  ...IdentityProviderName[],
];

interface AdapterSelection {
  BANK_RAIL: BankRailName;
  IDENTITY_PROVIDER: IdentityProviderName;
}

export function createAdapters(config: AdapterSelection): { rail: BankRail; identity: IdentityProvider } {
  return {
    rail: BANK_RAILS[config.BANK_RAIL].create(),
    identity: IDENTITY_PROVIDERS[config.IDENTITY_PROVIDER].create(),
  };
}

/** The selected adapters that are sandbox implementations. */
export function sandboxAdapters(config: AdapterSelection): SandboxPart[] {
  const parts: SandboxPart[] = [];
  if (BANK_RAILS[config.BANK_RAIL].sandbox) {
    parts.push({ name: "BANK_RAIL", reason: `"${config.BANK_RAIL}" is the sandbox bank rail` });
  }
  if (IDENTITY_PROVIDERS[config.IDENTITY_PROVIDER].sandbox) {
    parts.push({
      name: "IDENTITY_PROVIDER",
      reason: `"${config.IDENTITY_PROVIDER}" is the sandbox identity check`,
    });
  }
  return parts;
}
