// The operator CLI over the admin API (DESIGN §10). Usage: `npm run admin -- <command>`; see `help`.
// Reads RAMP_URL (default http://127.0.0.1:$PORT or :8080) and ADMIN_TOKEN from the environment.

const USAGE = `usage: npm run admin -- <command>
  business create <name> [feeBps]     create a business; prints its first API key and webhook secret
  key create <businessId>             issue another API key for a business
  key revoke <apiKey>                 revoke an API key (401 on every gateway from then on)
  rate set <CURRENCY> <onRamp> <offRamp>
  rate delete <CURRENCY>
environment: RAMP_URL (default http://127.0.0.1:8080), ADMIN_TOKEN (required)`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const base = process.env.RAMP_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`;
const token = process.env.ADMIN_TOKEN;
const [group, action, ...args] = process.argv.slice(2);

async function call(method: string, path: string, body?: unknown): Promise<void> {
  if (!token) fail("ADMIN_TOKEN is not set");
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  process.stdout.write(`${res.status} ${text}\n`);
  if (!res.ok) process.exit(1);
}

const number = (v: string | undefined, what: string) => {
  const n = Number(v);
  if (v === undefined || !Number.isFinite(n)) fail(`${what} must be a number\n${USAGE}`);
  return n;
};

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
  default:
    fail(USAGE);
}
