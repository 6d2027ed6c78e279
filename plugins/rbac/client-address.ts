import ipaddr from 'ipaddr.js';

/** A parsed `trustedProxies` list: single addresses and CIDR ranges, IPv4 and IPv6. */
export type TrustedProxies = Array<[ipaddr.IPv4 | ipaddr.IPv6, number]>;

export function parseTrustedProxies(list: readonly string[]): TrustedProxies {
  return list.map((entry) =>
    entry.includes('/')
      ? ipaddr.parseCIDR(entry)
      : (() => {
          const addr = ipaddr.parse(entry);
          return [addr, addr.kind() === 'ipv4' ? 32 : 128] as [ipaddr.IPv4 | ipaddr.IPv6, number];
        })(),
  );
}

export function isValidProxyEntry(entry: string): boolean {
  try {
    parseTrustedProxies([entry]);
    return true;
  } catch {
    return false;
  }
}

function trusted(address: string, proxies: TrustedProxies): boolean {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.process(address.trim());
  } catch {
    return false;
  }
  return proxies.some(([range, bits]) => {
    const candidate =
      parsed.kind() === range.kind()
        ? parsed
        : parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()
          ? (parsed as ipaddr.IPv6).toIPv4Address()
          : undefined;
    return candidate !== undefined && candidate.kind() === range.kind() && candidate.match(range, bits);
  });
}

/**
 * The address a request comes from, for failed-key throttling and the audit log. The socket's peer,
 * unless that peer is a trusted proxy: then the right-most `X-Forwarded-For` address that is not
 * itself trusted (the left-most entries are whatever the client chose to send, so they are never
 * believed). With no trusted proxies the header is ignored entirely.
 */
export function clientAddress(peer: string | undefined, headers: Headers, proxies: TrustedProxies): string | undefined {
  if (peer === undefined || proxies.length === 0 || !trusted(peer, proxies)) return peer;
  const forwarded = headers.get('x-forwarded-for');
  if (!forwarded) return peer;
  const hops = forwarded
    .split(',')
    .map((h) => h.trim())
    .filter((h) => h !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    if (!trusted(hops[i]!, proxies)) return hops[i];
  }
  return hops[0] ?? peer;
}
