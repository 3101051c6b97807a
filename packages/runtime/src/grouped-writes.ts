/**
 * Group commit: writes that become ready while one command is in flight go together in the next
 * command, so under load many documents' writes cost one round trip and one command, and alone a
 * write goes at once (no timer, no added wait). `send` answers each write's outcome; where a command
 * answers only a count (`update`'s one `nModified` for all its statements), `byCount` reads it. A write
 * whose outcome is `unknown` is done again on its own by its caller (the writes grouped here are
 * idempotent), as is every write of a command that failed.
 */
export type GroupedOutcome = "modified" | "unmodified" | "unknown";

export interface GroupedWrites<W> {
  /** Sends `write` in the next command; resolves once that command is answered. */
  run(write: W): Promise<GroupedOutcome>;
}

/**
 * A write's own outcome from the count of documents its command changed: sure when it went alone, or
 * when every write of the command changed its document.
 */
export function byCount(modified: number, writes: number): GroupedOutcome[] {
  let outcome: GroupedOutcome = "unknown";
  if (modified === writes) outcome = "modified";
  else if (writes === 1) outcome = "unmodified";
  return Array.from({ length: writes }, () => outcome);
}

/** `send` sends one command holding every write given and answers each one's outcome; `maxGroup` bounds one command. */
export function groupedWrites<W>(
  send: (writes: W[]) => Promise<GroupedOutcome[]>,
  maxGroup = 256,
): GroupedWrites<W> {
  let waiting: { write: W; done: (o: GroupedOutcome) => void }[] = [];
  let sending = false;

  const drain = async () => {
    sending = true;
    while (waiting.length > 0) {
      const group = waiting.slice(0, maxGroup);
      waiting = waiting.slice(group.length);
      let outcomes: GroupedOutcome[] = [];
      try {
        outcomes = await send(group.map((g) => g.write));
      } catch {
        // Which statements were applied is not known: each caller redoes its own and sees its own error.
      }
      for (const [i, g] of group.entries()) g.done(outcomes[i] ?? "unknown");
    }
    sending = false;
  };

  return {
    run: (write) =>
      new Promise<GroupedOutcome>((done) => {
        waiting.push({ write, done });
        if (!sending) void drain();
      }),
  };
}
