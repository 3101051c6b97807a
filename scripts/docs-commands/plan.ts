// What happens to each documented command: run it as written (with the stack's real URL, key and
// token in place of the placeholders), start it in the background, or skip it for a stated reason.
// Every documented command must match a rule (extract.test.ts), so a new one gets a decision.
import type { DocCommand } from "./extract.ts";

export interface StackFacts {
  /** The gateway's base URL, e.g. http://127.0.0.1:41234. */
  url: string;
  apiKey: string;
  adminToken: string;
  /** A local URL that answers webhook deliveries, in place of the guide's receiver on port 3000. */
  webhookTarget: string;
  /** A scratch folder for files a command writes (.env, body.json). */
  scratch: string;
}

export type Plan =
  | { action: "skip"; reason: string }
  | { action: "start"; reason: string }
  | {
      action: "run";
      /** Part of the quick subset the CI test runs (seconds, no Docker, nothing written in the repo). */
      quick: boolean;
      /** What was changed from the text as written, if anything. */
      note?: string;
      /** The command to give the shell. */
      shell: (facts: StackFacts) => string;
      /** Output that must appear for the command to pass, beyond its exit status 0. */
      expect?: RegExp;
      /** Reads a value from the output into a shell variable for a later command (`<businessId>`). */
      capture?: { variable: string; from: (output: string) => string | undefined };
    };

/** The guide's signed sample delivery, which its openssl command must reproduce. */
export interface SignedSample {
  timestamp: string;
  signature: string;
  body: string;
  secret: string;
}

export function signedSample(guide: string): SignedSample {
  const timestamp = /X-SVC-Timestamp: (\d+)/.exec(guide)?.[1];
  const signature = /X-SVC-Signature: v1=([0-9a-f]{64})/.exec(guide)?.[1];
  const body = /\n\n(\{"id":[^\n]*\})\n```/.exec(guide)?.[1];
  const secret = /(whsec_[0-9a-f]{64})/.exec(guide)?.[1];
  if (!timestamp || !signature || !body || !secret)
    throw new Error("the guide's signed sample is incomplete");
  return { timestamp, signature, body, secret };
}

const shellQuote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** The placeholders and the fixed local URL every documented command may contain. */
export function fillIn(text: string, facts: StackFacts): string {
  return (
    text
      .replaceAll("http://127.0.0.1:8080", facts.url)
      .replaceAll("<printed key>", facts.apiKey)
      .replaceAll("<printed sandbox key>", facts.apiKey)
      .replaceAll("<printed admin token>", facts.adminToken)
      .replaceAll("ADMIN_TOKEN=…", `ADMIN_TOKEN=${facts.adminToken}`)
      .replaceAll("<businessId>", '"$BUSINESS_ID"')
      // The guide's own receiver (its verifyWebhook example listens on 3000); the check runs its own.
      .replaceAll("http://127.0.0.1:3000", facts.webhookTarget)
  );
}

type RunPlan = Extract<Plan, { action: "run" }>;

/** Run the command as written, its placeholders filled in, unless `extra.shell` says otherwise. */
const run = (c: DocCommand, quick: boolean, extra: Partial<RunPlan> = {}): Plan => ({
  action: "run",
  quick,
  shell: (f) => fillIn(c.text, f),
  ...extra,
});

interface Rule {
  match: RegExp;
  plan: (command: DocCommand, sample: SignedSample) => Plan;
}

const skip = (reason: string) => () => ({ action: "skip", reason }) as const;

const RULES: Rule[] = [
  {
    match: /^npm start\b/,
    plan: () => ({ action: "start", reason: "long-running: started in the background, then probed" }),
  },
  { match: /^npm test\b/, plan: skip("the whole suite (minutes); CI runs it as its own step, .ci/run") },
  {
    match: /^npm run check(?::structure)?$/,
    plan: skip("typecheck, lint and the import check: steps of npm test, which CI runs"),
  },
  {
    match: /^(?:[A-Z_]+=\S+ )*npm run bench/,
    plan: skip("a benchmark: minutes of load, its figures read by a person"),
  },
  {
    match: /^npm run vitest -- /,
    plan: skip("one test file of the suite, which CI runs whole"),
  },
  {
    match: /^RAMP_LOCAL_DB=\S+ npm run vitest$/,
    plan: skip("the whole suite on one database backend (minutes); CI runs it on the default one"),
  },
  { match: /^scripts\/fuzz-api\.sh/, plan: skip("installs schemathesis from PyPI and fuzzes for minutes") },
  { match: /^docker /, plan: skip("needs a Docker engine, and pulls or builds images") },
  {
    match: /^kustomize build --enable-helm/,
    plan: skip(
      "needs helm and downloads the NATS chart; e2e/deploy-manifests.test.ts checks its values offline",
    ),
  },
  {
    match: /^kustomize build /,
    plan: (c) =>
      run(c, false, {
        note: "kustomize from .tools/bin, where the deployment test builds it",
        shell: (f) => `PATH="$PATH:$RAMP_TOOLS_BIN" ${fillIn(c.text, f)}`,
      }),
  },
  {
    match: /^node --import tsx scripts\/build-services\.ts$/,
    plan: (c) => run(c, true, { note: "builds the bundles that are stale; nothing when they are current" }),
  },
  {
    match: /^node (?:--enable-source-maps )?services\/<name>\/dist\/main\.mjs$/,
    plan: skip(
      "how the launcher runs each service (with the environment it gives it), not a command to type",
    ),
  },
  {
    match: /^open http/,
    plan: (c) =>
      run(c, true, {
        note: "fetched with curl instead of opening a browser",
        shell: (f) =>
          `curl -sS -o /dev/null -w '%{http_code} %{content_type}\\n' ${fillIn(c.text, f).split(/\s+/)[1]}`,
        expect: /^200 text\/html/,
      }),
  },
  {
    match: /^npm run nats:keys >> \.env$/,
    plan: (c) =>
      run(c, true, {
        note: "appends to a scratch .env, not the repository's",
        shell: (f) =>
          `npm run --silent nats:keys >> ${shellQuote(`${f.scratch}/.env`)} && grep -c '_NATS_NKEY_SEED=SU' ${shellQuote(`${f.scratch}/.env`)}`,
        // A count of the seeds written, not a line of them: seeds stay out of the check's output.
        expect: /^[1-9]\d*$/m,
      }),
  },
  {
    match: /^npm run nats:keys$/,
    plan: (c) =>
      run(c, true, {
        note: "only its NATS_PEER_KEYS line shown: the rest are fresh seeds, kept out of the check's output",
        shell: () => "npm run --silent nats:keys | grep '^NATS_PEER_KEYS='",
        expect: /^NATS_PEER_KEYS=gateway=U/m,
      }),
  },
  {
    match: /^npm run nats:config$/,
    plan: (c) =>
      run(c, true, {
        note: "in check mode: it would otherwise rewrite deploy/nats/nats.conf",
        shell: () => "npm run --silent nats:config -- --check",
        expect: /is current/,
      }),
  },
  {
    match: /^npm run nats:config -- --check$/,
    plan: (c) => run(c, true, { expect: /is current/ }),
  },
  { match: /^npm run check:docs$/, plan: skip("this check itself") },
  {
    match: /^pnpm --filter @ramp\/sdk (?:package|build)$/,
    plan: (c) => run(c, false, { note: "writes packages/sdk/dist and the tarball (both ignored by git)" }),
  },
  {
    match: /^npm pack \.\/packages\/sdk\/dist$/,
    plan: skip("the second half of `pnpm --filter @ramp/sdk package`, which is run"),
  },
  {
    match: /^npm install \/path\/to\/ramp\//,
    plan: skip(
      "in the reader's own project; e2e/sdk-package.test.ts installs the tarball, offline, into a fresh one",
    ),
  },
  {
    match: /^(?:ADMIN_TOKEN=\S+ )?npm run admin -- business create /,
    plan: (c) =>
      run(c, true, {
        expect: /^201 /m,
        capture: {
          variable: "BUSINESS_ID",
          from: (out) => /^201 (\{.*\})$/m.exec(out)?.[1]?.match(/"id":"([^"]+)"/)?.[1],
        },
      }),
  },
  {
    match: /^(?:ADMIN_TOKEN=\S+ )?npm run admin -- key create /,
    plan: (c) => run(c, true, { expect: /^201 /m }),
  },
  {
    match: /^(?:ADMIN_TOKEN=\S+ )?npm run admin -- help$/,
    plan: (c) => run(c, true, { expect: /^usage:/m }),
  },
  { match: /^export (RAMP|KEY|ADMIN_TOKEN)=/, plan: (c) => run(c, true) },
  {
    match: /^(?:[A-Z]+=\$\()?curl /,
    plan: (c) =>
      run(c, true, {
        ...(c.text.includes("http://127.0.0.1:3000")
          ? { note: "the guide's receiver on port 3000 replaced by the check's own, on a free port" }
          : {}),
      }),
  },
  {
    match: /^printf '%s\.' "\$TIMESTAMP" \| cat - body\.json \| openssl /,
    plan: (c, sample) =>
      run(c, true, {
        note: "with the guide's sample delivery as body.json, its timestamp and its secret",
        shell: (f) => {
          const body = `${f.scratch}/body.json`;
          return [
            `printf '%s' ${shellQuote(sample.body)} > ${shellQuote(body)}`,
            `TIMESTAMP=${sample.timestamp} WEBHOOK_SECRET=${sample.secret}`,
            c.text.replace("body.json", shellQuote(body)),
          ].join("; ");
        },
        expect: new RegExp(sample.signature),
      }),
  },
  {
    match: /^[A-Z_]+=[^\s]+$/,
    plan: skip("a setting for a service's environment, not a command"),
  },
];

/** The plan for a command, or undefined when no rule matches it (a test fails on that). */
export function planFor(command: DocCommand, sample: SignedSample): Plan | undefined {
  return RULES.find((r) => r.match.test(command.text))?.plan(command, sample);
}
