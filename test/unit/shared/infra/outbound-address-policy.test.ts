import { describe, expect, it } from 'vitest';
import { fetchRemoteMedia } from '../../../../shared/bots/remote-media.js';
import {
  checkOutboundUrl,
  guardedLookup,
  isNonPublicAddress,
} from '../../../../shared/infra/outbound-address-policy.js';

const strict = { allowPrivateAddresses: false, allowHttp: false, allowedPorts: [80, 443, 8080, 8443] };

describe('non-public addresses', () => {
  it.each([
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.10.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '[::1]',
    'not-an-address',
    // Each of these was once accepted: the whole special-purpose registries are refused now.
    '::127.0.0.1', // IPv4-compatible
    '::7f00:1',
    '2002:7f00:1::1', // 6to4 of loopback
    '2002:808:808::1', // 6to4 of anything
    '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '2001:2::1', // benchmarking
    '192.88.99.1', // 6to4 relay anycast
    '192.31.196.1',
    '192.52.193.1',
    '192.175.48.1',
    '198.19.255.255',
    '3fff::1', // documentation
    '2001:db8::1',
    '100::1', // discard
    '5f00::1', // outside global unicast
    '::ffff:192.88.99.1',
  ])('%s is refused', (address) => {
    expect(isNonPublicAddress(address)).toBe(true);
  });

  it.each(['8.8.8.8', '93.184.215.14', '172.32.0.1', '192.169.0.1', '2606:4700::1111', '::ffff:8.8.8.8'])(
    '%s is public',
    (address) => {
      expect(isNonPublicAddress(address)).toBe(false);
    },
  );
});

describe('checkOutboundUrl', () => {
  it('takes a public https URL and normalises it', async () => {
    const check = await checkOutboundUrl('HTTPS://93.184.215.14:8443/a/b?c=d', strict);
    expect(check).toEqual({ ok: true, url: new URL('https://93.184.215.14:8443/a/b?c=d') });
  });

  it('refuses http unless allowed, and private addresses unless allowed', async () => {
    expect(await checkOutboundUrl('http://93.184.215.14/', strict)).toEqual({
      ok: false,
      reason: 'must be an https URL',
    });
    expect((await checkOutboundUrl('http://93.184.215.14/', { ...strict, allowHttp: true })).ok).toBe(true);
    expect((await checkOutboundUrl('https://127.0.0.1/', strict)).ok).toBe(false);
    expect(
      (await checkOutboundUrl('https://127.0.0.1/', { ...strict, allowPrivateAddresses: true })).ok,
    ).toBe(true);
  });

  it('resolves names: localhost is loopback (from /etc/hosts, no network)', async () => {
    const local = await checkOutboundUrl('https://localhost/hook', strict);
    expect(local.ok).toBe(false);
    expect(!local.ok && local.reason).toMatch(
      /^localhost resolves to a private, loopback or link-local address; such addresses are refused$/,
    );
  });

  // A stand-in resolver: tests never send DNS queries off the machine.
  const resolver = (answers: Record<string, string[]>) => async (hostname: string) => {
    const addresses = answers[hostname];
    if (!addresses)
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

  it('refuses a name that resolves to any non-public address, or to nothing', async () => {
    const dns = resolver({
      'hooks.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
      'mixed.example.com': ['93.184.215.14', '10.0.0.7'],
      'metadata.example.com': ['169.254.169.254'],
    });
    expect((await checkOutboundUrl('https://hooks.example.com/x', strict, dns)).ok).toBe(true);
    expect(await checkOutboundUrl('https://mixed.example.com/x', strict, dns)).toEqual({
      ok: false,
      reason:
        'mixed.example.com resolves to a private, loopback or link-local address; such addresses are refused',
    });
    expect((await checkOutboundUrl('https://metadata.example.com/x', strict, dns)).ok).toBe(false);
    expect(await checkOutboundUrl('https://no-such-host.example.com/x', strict, dns)).toEqual({
      ok: false,
      reason: 'host no-such-host.example.com could not be resolved',
    });
  });

  it('refuses ports outside WEBHOOK_ALLOWED_PORTS, and takes any with `any`', async () => {
    expect(await checkOutboundUrl('https://93.184.215.14:22/x', strict)).toEqual({
      ok: false,
      reason: 'port 22 is not allowed; webhook endpoints may use ports 80, 443, 8080, 8443',
    });
    expect((await checkOutboundUrl('https://93.184.215.14:444/x', strict)).ok).toBe(false);
    expect((await checkOutboundUrl('https://93.184.215.14:443/x', strict)).ok).toBe(true);
    expect(
      (await checkOutboundUrl('https://93.184.215.14:444/x', { ...strict, allowedPorts: 'any' })).ok,
    ).toBe(true);
    expect(
      (await checkOutboundUrl('http://93.184.215.14/x', { ...strict, allowHttp: true, allowedPorts: [443] }))
        .ok,
    ).toBe(false);
  });

  it('refuses credentials and fragments', async () => {
    expect((await checkOutboundUrl('https://a:b@93.184.215.14/', strict)).ok).toBe(false);
    expect((await checkOutboundUrl('https://93.184.215.14/#x', strict)).ok).toBe(false);
  });

  // A refusal names the host the user gave and the rule, never what the name resolved to: the
  // resolved address would tell a user the operator's internal DNS (issue 48).
  it('never shows the private address a name resolved to, at check time nor at connection time', async () => {
    const hidden = ['10.0.0.7', '169.254.169.254', 'fd00::5'];
    const dns = async () => hidden.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    const checked = await checkOutboundUrl('https://intranet.example.com/x', strict, dns);
    expect(checked.ok).toBe(false);
    const reason = checked.ok ? '' : checked.reason;
    expect(reason).toContain('intranet.example.com resolves to a private');
    for (const address of hidden) expect(reason).not.toContain(address);

    // localhost comes from /etc/hosts (no query leaves the machine): 127.0.0.1 and/or ::1.
    const lookupError = await new Promise<Error | null>((resolve) =>
      guardedLookup(strict)('localhost', { all: true }, (error) => resolve(error)),
    );
    expect(lookupError?.message).toBe(
      'localhost resolves to a private, loopback or link-local address; such addresses are refused',
    );
    expect(lookupError?.message).not.toMatch(/127\.0\.0\.1|::1/);

    // What a speak/screen caller gets back in the 400.
    const media = fetchRemoteMedia(
      'audio_url',
      'http://localhost:9/a.wav',
      { ...strict, allowHttp: true, allowedPorts: 'any' },
      {
        maxBytes: 1000,
        times: { idleTimeoutMs: 1000, deadlineMs: 1000 },
        accept: 'audio/*',
      },
    );
    await expect(media).rejects.toThrow(/^audio_url localhost resolves to a private/);
    await expect(media).rejects.not.toThrow(/127\.0\.0\.1|::1/);
  });
});
