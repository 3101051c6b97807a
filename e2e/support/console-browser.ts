// Debian's Chromium, driven by playwright-core, against a stack's gateway: the console's browser tests.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { ensureChromium, REPO_ROOT } from "@ramp/devinfra";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";

export const SCREENSHOTS = join(REPO_ROOT, "docs", "screenshots");

export const WIDE = { width: 1280, height: 860 };
export const PHONE = { width: 390, height: 844 };

export interface ConsoleBrowser {
  browser: Browser;
  /** A fresh browser profile (no cookies) watching for page errors and requests to other origins. */
  open(viewport?: { width: number; height: number }): Promise<ConsolePage>;
  close(): Promise<void>;
}

export interface ConsolePage {
  context: BrowserContext;
  page: Page;
  /** Uncaught page errors and console errors (a CSP violation is one): every test expects none. */
  problems: string[];
  /** Requests to anywhere but the gateway's origin: every test expects none. */
  foreign: string[];
  goto(path: string): Promise<void>;
  shot(name: string): Promise<void>;
}

export async function openConsoleBrowser(gatewayUrl: string): Promise<ConsoleBrowser> {
  // As root, Chromium runs only without its sandbox; the pages it loads are this test's own.
  const browser = await chromium.launch({ executablePath: ensureChromium(), args: ["--no-sandbox"] });
  const origin = new URL(gatewayUrl).origin;
  mkdirSync(SCREENSHOTS, { recursive: true });
  return {
    browser,
    async open(viewport = WIDE) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      const problems: string[] = [];
      const foreign: string[] = [];
      page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
      page.on("console", (m) => {
        // The browser logs every 4xx answer as a failed load; the console handles those (sign-in on 401,
        // the API's message otherwise), and the tests check what it shows.
        if (m.type() === "error" && !/^Failed to load resource: .* status of 4\d\d/.test(m.text())) {
          problems.push(`console: ${m.text()}`);
        }
      });
      page.on("request", (r) => {
        const url = r.url();
        if (!url.startsWith(`${origin}/`) && !url.startsWith("blob:")) foreign.push(url);
      });
      return {
        context,
        page,
        problems,
        foreign,
        async goto(path) {
          await page.goto(`${origin}${path}`);
        },
        async shot(name) {
          await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
        },
      };
    },
    close: () => browser.close(),
  };
}

/** Signs in through the form, as a person does. */
export async function signIn(p: ConsolePage, email: string, password: string): Promise<void> {
  await p.page.getByLabel("Email").fill(email);
  await p.page.getByLabel("Password").fill(password);
  await p.page.getByRole("button", { name: "Sign in" }).click();
  await p.page.getByRole("button", { name: "Sign out" }).waitFor();
}

/**
 * What makes the page scroll sideways: "" when its content fits the viewport, else the tags and
 * classes of the elements that reach past its right edge.
 */
export const overflowsSideways = (page: Page) =>
  page.evaluate(() => {
    const g = globalThis as any;
    const doc = g.document;
    if (doc.documentElement.scrollWidth <= g.innerWidth) return "";
    const wide = [...doc.querySelectorAll("body *")].filter(
      (el: any) => el.getBoundingClientRect().right > g.innerWidth + 0.5,
    );
    return wide.map((el: any) => `${el.tagName.toLowerCase()}.${el.className}`).join(" ") || "overflow";
  });
