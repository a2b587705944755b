import { createHmac } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhookSignature,
} from '../../../../shared/webhooks/signature.js';

const secret = 'whsec_test-secret-value';
const body = '{"id":"x","type":"meeting.status_changed"}';
const now = 1_790_000_000;

describe('webhook signatures', () => {
  it('are v1= + hex HMAC-SHA256 of "timestamp.body", as documented', () => {
    const expected = createHmac('sha256', secret).update(`${now}.${body}`).digest('hex');
    expect(signWebhook(secret, now, body)).toBe(`v1=${expected}`);
  });

  it('verify with the right secret, body and a recent timestamp', () => {
    const signature = signWebhook(secret, now, body);
    expect(
      verifyWebhookSignature({ secret, body, timestamp: String(now), signature, nowSeconds: now + 10 }),
    ).toBe(true);
  });

  it.each([
    ['another secret', { secret: 'whsec_other' }],
    ['a changed body', { body: `${body} ` }],
    ['a moved timestamp', { timestamp: String(now + 1) }],
    ['a stale timestamp', { nowSeconds: now + 301 }],
    ['no timestamp', { timestamp: undefined }],
    ['a non-numeric timestamp', { timestamp: '12a' }],
    ['no signature', { signature: undefined }],
    ['a truncated signature', { signature: signWebhook(secret, now, body).slice(0, 20) }],
  ])('refuse %s', (_label, change) => {
    const input = {
      secret,
      body,
      timestamp: String(now) as string | undefined,
      signature: signWebhook(secret, now, body) as string | undefined,
      nowSeconds: now,
      ...change,
    };
    expect(verifyWebhookSignature(input)).toBe(false);
  });

  it('accept any of several listed signatures (secret rotation on the receiver side)', () => {
    const signature = `v1=${'0'.repeat(64)}, ${signWebhook(secret, now, body)}`;
    expect(verifyWebhookSignature({ secret, body, timestamp: String(now), signature, nowSeconds: now })).toBe(
      true,
    );
  });

  it('generated secrets are random and long', () => {
    const a = generateWebhookSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(generateWebhookSecret()).not.toBe(a);
  });
});

describe('the verification snippet in docs/webhooks.md', () => {
  it('accepts what the service signs and refuses a tampered body', async () => {
    const page = readFileSync(new URL('../../../../docs/webhooks.md', import.meta.url), 'utf8');
    const snippet = /```js\n([\s\S]*?function verifyMeetbotWebhook[\s\S]*?)```/.exec(page)?.[1];
    expect(snippet, 'a js block defining verifyMeetbotWebhook').toBeDefined();
    const dir = mkdtempSync(join(tmpdir(), 'webhook-doc-snippet-'));
    const file = join(dir, 'verify.mjs');
    writeFileSync(file, `${snippet}\nexport { verifyMeetbotWebhook };\n`);
    const { verifyMeetbotWebhook } = await import(pathToFileURL(file).href);

    const timestamp = Math.floor(Date.now() / 1000);
    const headers = {
      'x-webhook-timestamp': String(timestamp),
      'x-webhook-signature': signWebhook(secret, timestamp, body),
    };
    expect(verifyMeetbotWebhook(secret, body, headers)).toBe(true);
    expect(verifyMeetbotWebhook(secret, `${body}x`, headers)).toBe(false);
    expect(verifyMeetbotWebhook('whsec_wrong', body, headers)).toBe(false);
  });
});
