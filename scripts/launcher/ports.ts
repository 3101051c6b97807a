// Checked before anything starts: a port another program holds fails the start at once, with its
// number, instead of after a banner that another stack's gateway answered for.
import { createServer } from "node:net";

/** Whether a server could listen on `port` on every interface, as the gateway and health servers do. */
export function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen({ port, host: "0.0.0.0", exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/** The ports of `ports` something else listens on, in order. */
export async function portsInUse(ports: readonly number[]): Promise<number[]> {
  const free = await Promise.all(ports.map(portIsFree));
  return ports.filter((_, i) => !free[i]);
}
