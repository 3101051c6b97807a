import type { Result, Router } from "hono/router";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { SmartRouter } from "hono/router/smart-router";
import { TrieRouter } from "hono/router/trie-router";

/** Paths Hono gives a handler registered for every path (`app.use(handler)`). */
const EVERY_PATH = new Set(["*", "/*"]);

const smart = <T>() => new SmartRouter<T>({ routers: [new RegExpRouter(), new TrieRouter()] });

/**
 * Hono's default router, twice: one for the paths `isInside` picks, one for the rest. Hono matches every
 * route with one precompiled expression (RegExpRouter) unless two routes can match the same path, and
 * then the whole app falls back to walking a tree (TrieRouter). The console API needs such pairs
 * (`/console/v1/transactions/export` beside `/console/v1/transactions/{id}`), which put the public
 * API's every request on the tree walk: 8 % of the gateway's CPU on `GET /pub/v2/rate`. Split, each
 * side chooses on its own routes. A handler for every path (the gateway's middleware) goes to both,
 * in the order it was added, so each side runs the same chain as one router would.
 */
export class SplitRouter<T> implements Router<T> {
  name = "SplitRouter";
  readonly #isInside: (path: string) => boolean;
  readonly #inside: Router<T> = smart<T>();
  readonly #outside: Router<T> = smart<T>();

  /** `isInside` must pick by a fixed leading segment, so that a route and the paths it matches agree. */
  constructor(isInside: (path: string) => boolean) {
    this.#isInside = isInside;
  }

  add(method: string, path: string, handler: T): void {
    if (EVERY_PATH.has(path)) {
      this.#inside.add(method, path, handler);
      this.#outside.add(method, path, handler);
      return;
    }
    // A path that starts with a parameter or a wildcard could match on either side.
    if (/^\/?[:*]/.test(path))
      throw new Error(`SplitRouter cannot place ${path}: it may match paths on both sides`);
    (this.#isInside(path) ? this.#inside : this.#outside).add(method, path, handler);
  }

  match(method: string, path: string): Result<T> {
    return (this.#isInside(path) ? this.#inside : this.#outside).match(method, path);
  }

  /** Which router each side settled on (after its first match), for tests and benchmarks. */
  get routers(): { inside: string; outside: string } {
    return { inside: this.#inside.name, outside: this.#outside.name };
  }
}
