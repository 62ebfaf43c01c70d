// The dashboard is for the person at this machine: it listens on a loopback address only, and answers only requests
// addressed to it by a loopback name. The second check stops DNS rebinding: a web page on evil.example whose name
// is made to resolve to 127.0.0.1 reaches the port, but its requests carry `Host: evil.example`.
import { isIP } from 'node:net';

/** The names the dashboard may listen on and be addressed by, besides the loopback IP addresses. */
const LOOPBACK_NAMES = new Set(['localhost']);

/** Whether `host` (a listen address, without brackets) is a loopback address or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase();
  if (LOOPBACK_NAMES.has(name)) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  if (isIP(name) === 6) return name === '::1' || name === '0:0:0:0:0:0:0:1';
  return false;
}

/** Whether a request's `Host` header names a loopback host on the dashboard's own port. */
export function isLoopbackHostHeader(header: string | undefined, port: number): boolean {
  if (header === undefined) return false;
  const match = /^(\[[0-9a-f:.]+\]|[^:[\]]+):(\d+)$/i.exec(header.trim());
  if (!match) return false;
  const [, host = '', portText] = match;
  const bare = host.startsWith('[') ? host.slice(1, -1) : host;
  return Number(portText) === port && isLoopbackHost(bare);
}
