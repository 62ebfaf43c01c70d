// Where a verification check may send a request (docs/verification.md, "Safety"). A URL in a Pipeline is written by
// whoever may apply one, and the controller calls it with its own network position and, for SigV4, its own role: it
// must never reach the instance metadata service, link-local addresses or, unless allowed, plain http. The same rule
// holds at apply (the URL as written), after DNS resolution (every address the name resolves to) and for every
// redirect (its target), so a name that resolves to 169.254.169.254 is refused like the literal address.
import { isIP } from 'node:net';

export interface OutboundOptions {
  /**
   * Plain `http://` to a loopback address (127.0.0.0/8, ::1, `localhost`): a sidecar or a port-forward in a local
   * setup, and the tests' fakes. Off by default: everything else is https.
   */
  allowLoopbackHttp?: boolean;
}

/** Why `text` may not be called, in words naming the rule; undefined when it may. */
export function outboundUrlProblem(text: string, options: OutboundOptions = {}): string | undefined {
  if (!/^https?:\/\//i.test(text.trim()) || !URL.canParse(text.trim())) {
    return 'must be an absolute https:// URL';
  }
  const url = new URL(text.trim());
  if (url.username !== '' || url.password !== '') {
    return 'must not hold a user name or password (name a Secret instead)';
  }
  const host = hostOf(url);
  if (isIP(host) !== 0) {
    const refused = refusedAddressProblem(host);
    if (refused) return refused;
  }
  if (url.protocol === 'http:' && !(options.allowLoopbackHttp === true && isLoopbackHost(host))) {
    return options.allowLoopbackHttp === true
      ? 'must be https:// (plain http:// only to a loopback address)'
      : 'must be https://';
  }
  return undefined;
}

/**
 * Why the controller never connects to `address` (an IPv4 or IPv6 literal): link-local (169.254.0.0/16, fe80::/10,
 * which holds every cloud's metadata service), the AWS metadata service's IPv6 address (fd00:ec2::254), unspecified
 * (0.0.0.0, ::), multicast or broadcast. Undefined when it may be called.
 */
export function refusedAddressProblem(address: string): string | undefined {
  const v4 = ipv4Of(address);
  if (v4) {
    const [a = 0, b = 0] = v4;
    if (a === 169 && b === 254) return `${address} is a link-local address (the instance metadata service lives there)`;
    if (a === 0) return `${address} is not an address one can call`;
    if (a >= 224) return `${address} is a multicast or reserved address`;
    return undefined;
  }
  const v6 = ipv6Groups(address);
  if (!v6) return undefined;
  const mapped = mappedIpv4(v6);
  if (mapped) return refusedAddressProblem(mapped);
  const [first = 0] = v6;
  if ((first & 0xffc0) === 0xfe80) return `${address} is a link-local address`;
  if (v6.every((group) => group === 0)) return `${address} is not an address one can call`;
  if ((first & 0xff00) === 0xff00) return `${address} is a multicast address`;
  if (v6.join(':') === [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254].join(':')) {
    return `${address} is the instance metadata service`;
  }
  return undefined;
}

/** Whether `host` (a name or an address literal, without brackets) is the loopback interface. */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  const v4 = ipv4Of(host);
  if (v4) return v4[0] === 127;
  const v6 = ipv6Groups(host);
  if (!v6) return false;
  const mapped = mappedIpv4(v6);
  if (mapped) return isLoopbackHost(mapped);
  return v6.slice(0, 7).every((group) => group === 0) && v6[7] === 1;
}

/** The URL's host without IPv6 brackets. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

function ipv4Of(address: string): number[] | undefined {
  if (isIP(address) !== 4) return undefined;
  return address.split('.').map(Number);
}

/** The eight 16-bit groups of an IPv6 literal (`::` expanded, a dotted IPv4 tail read); undefined otherwise. */
function ipv6Groups(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split('.').map(Number);
    text = `${text.slice(0, -dotted[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headGroups.length - tailGroups.length;
  const groups = [...headGroups, ...Array.from({ length: tail === undefined ? 0 : missing }, () => '0'), ...tailGroups];
  return groups.length === 8 ? groups.map((group) => Number.parseInt(group, 16)) : undefined;
}

/** `::ffff:a.b.c.d` as the IPv4 address it maps. */
function mappedIpv4(groups: readonly number[]): string | undefined {
  const mapped = groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff;
  if (!mapped) return undefined;
  const [high = 0, low = 0] = groups.slice(6);
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}
