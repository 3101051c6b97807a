// The operator CLI over the admin API. Usage: `npm run admin -- <command>`; see `help`.
// Talks to RAMP_URL, else the local gateway on $PORT (the variable `npm start` serves on), else 8080.

const USAGE = `usage: npm run admin -- <command>
  business create <name> [feeBps]     create a business; prints its first API key and webhook secret
  key create <businessId>             issue another API key for a business
  key revoke <apiKey>                 revoke an API key (401 on every gateway from then on)
  rate set <CURRENCY> <onRamp> <offRamp>
  rate delete <CURRENCY>
  operator create <email> <admin|operator|viewer>
                                      create a console operator; the password (12+ characters) is read
                                      from OPERATOR_PASSWORD, else from the first line of stdin
  help                                this text
environment:
  ADMIN_TOKEN   the gateway's admin token (required; \`npm start\` prints it)
  OPERATOR_PASSWORD   the new operator's password (kept off the command line, where ps shows it)
  RAMP_URL      the gateway's address; when unset http://127.0.0.1:$PORT, and PORT defaults to 8080`;

/** Exit codes: 0 done, 1 the gateway refused or did not answer, 2 a usage mistake. */
function fail(message: string, code = 2): never {
  process.stderr.write(`${message}\n`);
  process.exit(code);
}

/** Why fetch failed, in one line: Node hides the useful part (ECONNREFUSED, ENOTFOUND) in `cause`. */
function reason(err: unknown): string {
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof Error) return "code" in cause ? String(cause.code) : cause.message;
  return err instanceof Error ? err.message : String(err);
}

const base = process.env.RAMP_URL || `http://127.0.0.1:${process.env.PORT || 8080}`;
const token = process.env.ADMIN_TOKEN;
const [group, action, ...args] = process.argv.slice(2);

async function call(method: string, path: string, body?: unknown): Promise<void> {
  if (!token) fail("ADMIN_TOKEN is not set");
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).catch((err: unknown) =>
    fail(`no gateway answered at ${base} (${reason(err)}); start it with \`npm start\` or set RAMP_URL`, 1),
  );
  const text = await res.text();
  process.stdout.write(`${res.status} ${text}\n`);
  if (!res.ok) process.exit(1);
}

async function firstLineOfStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("password: ");
  let text = "";
  for await (const chunk of process.stdin) {
    text += chunk;
    if (text.includes("\n")) break;
  }
  return text.split(/\r?\n/)[0] ?? "";
}

const number = (v: string | undefined, what: string) => {
  const n = Number(v);
  if (v === undefined || !Number.isFinite(n)) fail(`${what} must be a number\n${USAGE}`);
  return n;
};

if (group === "help" || group === "--help" || group === "-h") {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

switch (`${group} ${action}`) {
  case "business create": {
    const [name, fee] = args;
    if (!name) fail(USAGE);
    await call("POST", "/businesses", {
      name,
      ...(fee === undefined ? {} : { feeBps: number(fee, "feeBps") }),
    });
    break;
  }
  case "key create":
    if (!args[0]) fail(USAGE);
    await call("POST", `/businesses/${args[0]}/api-keys`);
    break;
  case "key revoke":
    if (!args[0]) fail(USAGE);
    await call("POST", "/api-keys/revoke", { apiKey: args[0] });
    break;
  case "rate set":
    if (!args[0]) fail(USAGE);
    await call("PUT", `/rates/${args[0]}`, {
      onRamp: number(args[1], "onRamp"),
      offRamp: number(args[2], "offRamp"),
    });
    break;
  case "rate delete":
    if (!args[0]) fail(USAGE);
    await call("DELETE", `/rates/${args[0]}`);
    break;
  case "operator create": {
    const [email, role] = args;
    if (!email || !role) fail(USAGE);
    const password = process.env.OPERATOR_PASSWORD || (await firstLineOfStdin());
    if (!password) fail("no password: set OPERATOR_PASSWORD or give it on stdin");
    await call("POST", "/operators", { email, password, role });
    break;
  }
  default:
    fail(USAGE);
}
