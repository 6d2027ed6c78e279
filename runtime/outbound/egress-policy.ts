import ipaddr from 'ipaddr.js';

/** Where callers' destinations may go. The manifest's `egress` block, widened per call by a plugin's own options. */
export interface EgressPolicy {
  /** Loopback, private, link-local (cloud metadata), unique-local and other non-public addresses. @default false */
  allowPrivate: boolean;
  /**
   * Destinations allowed whatever their address: `host`, `host:port`, `*.example.com`, an IP
   * (`10.0.0.7`, `[fd00::1]:8080`) or a CIDR range (`10.0.0.0/8`).
   */
  allowHosts: readonly string[];
}

export type DenyReason = 'scheme' | 'private_address' | 'credentials_in_url';

interface HostRule {
  host?: string;
  suffix?: string;
  port?: string;
  cidr?: [ipaddr.IPv4 | ipaddr.IPv6, number];
}

function parseRule(entry: string): HostRule {
  const trimmed = entry.trim().toLowerCase();
  if (trimmed.includes('/')) {
    const [addr, bits] = ipaddr.parseCIDR(trimmed);
    return { cidr: [addr, bits] };
  }
  let host = trimmed;
  let port: string | undefined;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(trimmed);
  if (bracketed) {
    host = bracketed[1]!;
    port = bracketed[2];
  } else if ((trimmed.match(/:/g) ?? []).length === 1) {
    [host, port] = trimmed.split(':') as [string, string];
  }
  if (host.startsWith('*.')) return { suffix: host.slice(1), ...(port ? { port } : {}) };
  return { host: ipaddr.isValid(host) ? ipaddr.process(host).toString() : host, ...(port ? { port } : {}) };
}

/** The address classes a public destination may have; everything else needs `allowPrivate` or an allow-list entry. */
function isPublic(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  const addr = address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress() ? (address as ipaddr.IPv6).toIPv4Address() : address;
  return addr.range() === 'unicast';
}

/** A compiled policy: the checks the outbound client runs on each URL and each resolved address. */
export class CompiledEgressPolicy {
  readonly allowPrivate: boolean;
  private readonly rules: HostRule[];

  constructor(policy: EgressPolicy) {
    this.allowPrivate = policy.allowPrivate;
    this.rules = policy.allowHosts.map(parseRule);
  }

  /** Whether an allow-list entry names this host (and port), before any address is known. */
  hostListed(hostname: string, port: string): boolean {
    const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
    const normal = ipaddr.isValid(host) ? ipaddr.process(host).toString() : host;
    return this.rules.some((r) => {
      if (r.port !== undefined && r.port !== port) return false;
      if (r.host !== undefined) return r.host === normal;
      if (r.suffix !== undefined) return normal.endsWith(r.suffix) && normal.length > r.suffix.length;
      return false;
    });
  }

  /** Whether a resolved (or literal) address may be connected to. */
  addressAllowed(address: string): boolean {
    if (!ipaddr.isValid(address)) return false;
    const parsed = ipaddr.process(address);
    if (this.allowPrivate || isPublic(parsed)) return true;
    return this.rules.some((r) => r.cidr !== undefined && parsed.kind() === r.cidr[0].kind() && parsed.match(r.cidr));
  }

  /** The first reason a URL is refused before any connection, if any. */
  checkUrl(url: URL): DenyReason | undefined {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'scheme';
    if (url.username !== '' || url.password !== '') return 'credentials_in_url';
    const host = url.hostname.replace(/^\[|\]$/g, '');
    const port = url.port || (url.protocol === 'https:' ? '443' : '80');
    if (this.hostListed(host, port)) return undefined;
    if (ipaddr.isValid(host) && !this.addressAllowed(host)) return 'private_address';
    // `localhost` and its kin never reach DNS in some resolvers: refuse them by name too.
    if (!this.allowPrivate && (host === 'localhost' || host.endsWith('.localhost'))) return 'private_address';
    return undefined;
  }
}

export function mergePolicies(base: EgressPolicy, extra: Partial<EgressPolicy> = {}): EgressPolicy {
  return { allowPrivate: base.allowPrivate || extra.allowPrivate === true, allowHosts: [...base.allowHosts, ...(extra.allowHosts ?? [])] };
}
