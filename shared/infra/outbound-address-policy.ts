import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/**
 * Where the service may send a request a user named: webhook endpoints, calendar feeds, the media a
 * bot speaks or shows. The operator sets it once with the WEBHOOK_* settings (WEBHOOK_ALLOW_HTTP,
 * WEBHOOK_ALLOW_PRIVATE_ADDRESSES, WEBHOOK_ALLOWED_PORTS: the "webhook address rules" of the docs),
 * and every outbound fetch is checked against it, first the URL (checkOutboundUrl) and then each
 * address at connection time (guardedLookup).
 */
export interface OutboundAddressPolicy {
  /** Private, loopback, link-local and other non-public addresses (tests, internal receivers). */
  allowPrivateAddresses: boolean;
  /** Plain http:// endpoints (tests); otherwise https only. */
  allowHttp: boolean;
  /** The ports an endpoint may use (WEBHOOK_ALLOWED_PORTS), or any. */
  allowedPorts: readonly number[] | 'any';
}

/** The policy the operator set in the environment (its WEBHOOK_* settings). */
export function outboundAddressPolicyOf(config: {
  WEBHOOK_ALLOW_PRIVATE_ADDRESSES: boolean;
  WEBHOOK_ALLOW_HTTP: boolean;
  WEBHOOK_ALLOWED_PORTS: readonly number[] | 'any';
}): OutboundAddressPolicy {
  return {
    allowPrivateAddresses: config.WEBHOOK_ALLOW_PRIVATE_ADDRESSES,
    allowHttp: config.WEBHOOK_ALLOW_HTTP,
    allowedPorts: config.WEBHOOK_ALLOWED_PORTS,
  };
}

/** The port a request to this URL goes to (the scheme's default when none is written). */
function effectivePort(url: URL): number {
  if (url.port) return Number(url.port);
  return url.protocol === 'http:' ? 80 : 443;
}

/** Why this URL's scheme or port is refused under the policy (undefined: allowed). */
export function schemeOrPortProblem(url: URL, policy: OutboundAddressPolicy): string | undefined {
  const httpAllowed = policy.allowHttp && url.protocol === 'http:';
  if (url.protocol !== 'https:' && !httpAllowed) return 'must be an https URL';
  const port = effectivePort(url);
  if (policy.allowedPorts !== 'any' && !policy.allowedPorts.includes(port)) {
    return `port ${port} is not allowed; webhook endpoints may use ports ${policy.allowedPorts.join(', ')}`;
  }
  return undefined;
}

/**
 * The special-purpose address registries (IANA, RFC 6890 and later): nothing in them is a public
 * endpoint. IPv4 is listed block by block; IPv6 must be global unicast (2000::/3) and
 * outside its special blocks, which also refuses IPv4-compatible (::a.b.c.d) and every other
 * reserved range. IPv4 inside IPv6 (mapped, NAT64) is judged as that IPv4 address.
 */
const NON_PUBLIC_IPV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata endpoints live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.31.196.0', 24], // AS112-v4
  ['192.52.193.0', 24], // AMT
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['192.175.48.0', 24], // direct delegation AS112
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and 255.255.255.255 broadcast
] as const) {
  NON_PUBLIC_IPV4.addSubnet(network, prefix, 'ipv4');
}

const GLOBAL_UNICAST_IPV6 = new BlockList();
GLOBAL_UNICAST_IPV6.addSubnet('2000::', 3, 'ipv6');

const SPECIAL_IPV6 = new BlockList();
for (const [network, prefix] of [
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID, AMT, AS112...
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (it embeds any IPv4 address, private ones included)
  ['2620:4f:8000::', 48], // direct delegation AS112
  ['3fff::', 20], // documentation
] as const) {
  SPECIAL_IPV6.addSubnet(network, prefix, 'ipv6');
}

/** IPv4 inside IPv6 (mapped ::ffff:a.b.c.d, NAT64 64:ff9b::a.b.c.d) is judged as that IPv4 address. */
function embeddedIpv4(address: string): string | undefined {
  const match = /^(?:::ffff:|64:ff9b::)(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (match) return match[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1]!, 16);
  const low = Number.parseInt(hex[2]!, 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** True for any address a public endpoint can't have (private, loopback, link-local, ...). */
export function isNonPublicAddress(address: string): boolean {
  const unbracketed = address.replace(/^\[|\]$/g, '');
  const family = isIP(unbracketed);
  if (family === 4) return NON_PUBLIC_IPV4.check(unbracketed, 'ipv4');
  if (family === 6) {
    const ipv4 = embeddedIpv4(unbracketed);
    if (ipv4) return NON_PUBLIC_IPV4.check(ipv4, 'ipv4');
    return !GLOBAL_UNICAST_IPV6.check(unbracketed, 'ipv6') || SPECIAL_IPV6.check(unbracketed, 'ipv6');
  }
  return true; // not an address at all: never trusted
}

export class OutboundAddressError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'OutboundAddressError';
  }
}

/**
 * The refusal a user sees: the host they wrote and the rule it breaks. A name's resolved addresses
 * are never shown, so a refusal can't be used to read the operator's internal DNS.
 */
export function refusedAddressMessage(host: string): string {
  const rule = 'a private, loopback or link-local address; such addresses are refused';
  return isIP(host.replace(/^\[|\]$/g, '')) ? `${host} is ${rule}` : `${host} resolves to ${rule}`;
}

function resolveAll(hostname: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) => {
    dnsLookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    );
  });
}

export type OutboundUrlCheck = { ok: true; url: URL } | { ok: false; reason: string };

/**
 * Whether a URL a user gave (a webhook endpoint, a calendar feed, a media URL) may be fetched under
 * the policy. The host is resolved and every address it has must be public (unless allowed), so a
 * name pointing at an internal service is refused too.
 */
export async function checkOutboundUrl(
  raw: string,
  policy: OutboundAddressPolicy,
  resolve: (hostname: string) => Promise<LookupAddress[]> = resolveAll,
): Promise<OutboundUrlCheck> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: 'must be an absolute https URL' };
  }
  const schemeOrPort = schemeOrPortProblem(url, policy);
  if (schemeOrPort) return { ok: false, reason: schemeOrPort };
  if (url.username || url.password) return { ok: false, reason: 'must not contain a user name or password' };
  if (url.hash) return { ok: false, reason: 'must not contain a #fragment' };
  if (policy.allowPrivateAddresses) return { ok: true, url };
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host)) {
    return isNonPublicAddress(host) ? { ok: false, reason: refusedAddressMessage(host) } : { ok: true, url };
  }
  let addresses: LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    return { ok: false, reason: `host ${host} could not be resolved` };
  }
  const refused = addresses.find((entry) => isNonPublicAddress(entry.address));
  if (refused) return { ok: false, reason: refusedAddressMessage(host) };
  if (addresses.length === 0) return { ok: false, reason: `host ${host} could not be resolved` };
  return { ok: true, url };
}

/**
 * A `lookup` for http(s).request that refuses non-public addresses at connection time, so a name
 * that was public when registered can't be re-pointed at an internal service later (DNS rebinding).
 */
export function guardedLookup(policy: OutboundAddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) {
        callback(error, '', 0);
        return;
      }
      const list = addresses as LookupAddress[];
      const refused = policy.allowPrivateAddresses
        ? undefined
        : list.find((entry) => isNonPublicAddress(entry.address));
      if (refused || list.length === 0) {
        const failure = new OutboundAddressError(
          refused ? refusedAddressMessage(hostname) : `host ${hostname} could not be resolved`,
        );
        callback(failure as NodeJS.ErrnoException, '', 0);
        return;
      }
      if (options.all) (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      else callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
