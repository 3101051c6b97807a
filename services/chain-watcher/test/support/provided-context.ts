/**
 * What the integration project's global setup (e2e/support/global-setup.ts) provides, declared here
 * too because this package's tsconfig does not include that file. Same shape, so the two merge.
 */
declare module "vitest" {
  export interface ProvidedContext {
    mongoUrl: string;
    natsBin: string;
    natsUrl: string;
    testDataDir: string;
  }
}

export {};
