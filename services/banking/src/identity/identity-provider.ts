/** BVN verification. Returns the verified person, or null when verification fails. */
export interface IdentityProvider {
  verifyBvn(bvn: string): Promise<{ firstName: string; lastName: string } | null>;
}

/** Sandbox: any 11-digit BVN verifies except `00000000000`. */
export function createSandboxIdentityProvider(): IdentityProvider {
  return {
    async verifyBvn(bvn) {
      if (!/^\d{11}$/.test(bvn) || bvn === "00000000000") return null;
      return { firstName: "SANDBOX", lastName: `USER${bvn.slice(-4)}` };
    },
  };
}
