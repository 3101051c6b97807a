// The shell commands README.md, docs/*.md and bench/README.md tell a reader to type: every command of their sh/bash
// code blocks, and inline code in the prose that starts with a program a reader runs.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export interface DocCommand {
  /** The file, relative to the repository root. */
  file: string;
  line: number;
  text: string;
  /** In a code block (run in order, as a reader pastes it) or inline in the prose. */
  inline: boolean;
}

const SHELL_FENCE = /^```(sh|bash|shell)\s*$/;
/**
 * Inline code that reads as a command: optional VAR=value settings, then a program a reader runs and
 * at least one argument (a lone `node` or `scripts/` names a thing, not a command).
 */
const INLINE_COMMAND =
  /^(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:npm|pnpm|node|docker|kustomize|curl|open|scripts\/)\S*\s+\S/;

/**
 * Splits a code block into commands: a line continues while it ends in `\` or leaves a quote or `$(`
 * open; blank and comment-only lines are dropped.
 */
export function splitCommands(block: string[]): Array<{ offset: number; text: string }> {
  const out: Array<{ offset: number; text: string }> = [];
  let current: string[] = [];
  let start = 0;
  let quote: "'" | '"' | null = null;
  let depth = 0;
  block.forEach((line, i) => {
    if (current.length === 0) {
      if (/^\s*(#.*)?$/.test(line)) return;
      start = i;
    }
    current.push(line);
    for (let k = 0; k < line.length; k++) {
      const c = line[k];
      if (quote) {
        if (c === quote) quote = null;
        else if (c === "\\" && quote === '"') k++;
      } else if (c === "'" || c === '"') quote = c;
      else if (c === "#" && (k === 0 || /\s/.test(line[k - 1] ?? ""))) break;
      else if (c === "$" && line[k + 1] === "(") {
        depth++;
        k++;
      } else if (c === ")" && depth > 0) depth--;
    }
    if (quote || depth > 0 || /\\\s*$/.test(line)) return;
    out.push({ offset: start, text: current.join("\n").trim() });
    current = [];
  });
  if (current.length > 0) out.push({ offset: start, text: current.join("\n").trim() });
  return out;
}

export function extractCommands(file: string, markdown: string): DocCommand[] {
  const lines = markdown.split("\n");
  const found: DocCommand[] = [];
  let block: string[] | null = null;
  let blockStart = 0;
  let inOtherFence = false;
  lines.forEach((line, i) => {
    if (block) {
      if (line.startsWith("```")) {
        for (const c of splitCommands(block))
          found.push({ file, line: blockStart + c.offset + 1, text: c.text, inline: false });
        block = null;
      } else block.push(line);
      return;
    }
    if (line.startsWith("```")) {
      if (!inOtherFence && SHELL_FENCE.test(line)) {
        block = [];
        blockStart = i + 1;
      } else inOtherFence = !inOtherFence;
      return;
    }
    if (inOtherFence) return;
    // Inline code may wrap onto the next line of the paragraph.
    const paragraph = `${line}\n${lines[i + 1] ?? ""}`;
    for (const m of line.matchAll(/`([^`]+)`/g)) {
      const text = m[1]?.replace(/\s+/g, " ").trim() ?? "";
      if (INLINE_COMMAND.test(text)) found.push({ file, line: i + 1, text, inline: true });
    }
    // A span opened on this line and closed on the next.
    const ticks = line.split("`").length - 1;
    if (ticks % 2 === 1) {
      const open = paragraph.slice(line.lastIndexOf("`") + 1);
      const close = open.indexOf("`");
      const text = close >= 0 ? open.slice(0, close).replace(/\s+/g, " ").trim() : "";
      if (text && INLINE_COMMAND.test(text)) found.push({ file, line: i + 1, text, inline: true });
    }
  });
  return found;
}

/**
 * README.md, then docs/*.md in name order, then bench/README.md (the benchmarks moved out of the README
 * stay covered). Code blocks are kept whole (a repeated lookup is a step of its flow); an inline command
 * already seen is kept once, where it first appears.
 */
export function documentedCommands(root: string): DocCommand[] {
  const files = [
    join(root, "README.md"),
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .sort()
      .map((f) => join(root, "docs", f)),
    join(root, "bench", "README.md"),
  ];
  const seen = new Set<string>();
  return files
    .flatMap((f) => extractCommands(relative(root, f), readFileSync(f, "utf8")))
    .filter((c) => {
      const repeat = seen.has(c.text);
      seen.add(c.text);
      return !(c.inline && repeat);
    });
}
