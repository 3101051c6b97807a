// Runs the documented commands in order in one shell, each per its plan, and says how each went.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type DocCommand, documentedCommands } from "./extract.ts";
import { type Plan, planFor, type StackFacts, signedSample } from "./plan.ts";
import type { Shell } from "./shell.ts";

export interface Outcome {
  command: DocCommand;
  verdict: "pass" | "fail" | "skip";
  /** The first line of the output, or why it was skipped. */
  detail: string;
  note?: string;
}

/**
 * The first line worth reading: npm's own `> ramp@ script` header and `npm warn` lines about the
 * machine's npm configuration are not the command's.
 */
export function firstLine(output: string): string {
  const line = output.split("\n").find((l) => l.trim() !== "" && !/^(> |npm warn )/.test(l));
  return (line ?? "(no output)").trim();
}

export function plannedCommands(root: string): Array<{ command: DocCommand; plan: Plan | undefined }> {
  const sample = signedSample(readFileSync(join(root, "docs", "integrator-guide.md"), "utf8"));
  return documentedCommands(root).map((command) => ({ command, plan: planFor(command, sample) }));
}

export async function runDocumented(opts: {
  root: string;
  shell: Shell;
  facts: StackFacts;
  /** Only the quick subset (the CI test); the rest is reported as skipped. */
  quickOnly: boolean;
  /** What `npm start` gave: the check script started it itself; the test has its own stack. */
  started: Outcome["detail"] | undefined;
  onOutcome?: (o: Outcome) => void;
}): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  const report = (o: Outcome) => {
    outcomes.push(o);
    opts.onOutcome?.(o);
  };
  for (const { command, plan } of plannedCommands(opts.root)) {
    if (!plan) {
      report({ command, verdict: "fail", detail: "no rule says how to check this command" });
    } else if (plan.action === "skip") {
      report({ command, verdict: "skip", detail: plan.reason });
    } else if (plan.action === "start") {
      report(
        opts.started === undefined
          ? { command, verdict: "skip", detail: "the test runs its own stack in-process" }
          : { command, verdict: "pass", detail: opts.started, note: plan.reason },
      );
    } else if (opts.quickOnly && !plan.quick) {
      report({ command, verdict: "skip", detail: "not in the quick subset; `npm run check:docs` runs it" });
    } else {
      const r = await opts.shell.run(plan.shell(opts.facts));
      const ok = r.status === 0 && (!plan.expect || plan.expect.test(r.output));
      if (ok && plan.capture) {
        const value = plan.capture.from(r.output);
        if (value) await opts.shell.run(`export ${plan.capture.variable}='${value}'`);
      }
      const status = r.status === 0 ? "" : ` (exit ${r.status})`;
      report({
        command,
        verdict: ok ? "pass" : "fail",
        detail: `${firstLine(r.output)}${status}`,
        ...(plan.note ? { note: plan.note } : {}),
      });
    }
  }
  return outcomes;
}

export function formatOutcome(o: Outcome): string {
  const where = `${o.command.file}:${o.command.line}`;
  const text = o.command.text.replace(/\s*\\\n\s*/g, " ").replace(/\n\s*/g, " ");
  const shown = text.length > 110 ? `${text.slice(0, 107)}...` : text;
  const lines = [`${o.verdict.toUpperCase().padEnd(4)}  ${where}  ${shown}`];
  if (o.note) lines.push(`        (${o.note})`);
  lines.push(`        → ${o.detail.length > 150 ? `${o.detail.slice(0, 147)}...` : o.detail}`);
  return lines.join("\n");
}
