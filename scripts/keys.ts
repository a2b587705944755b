import { parseArgs } from 'node:util';
import { webhookChangeOf, webhookSettingsRequest } from '../api/routes/user/schema.js';
import {
  findOrCreateUser,
  issueApiKey,
  replaceNamedApiKey,
  revokeUserApiKey,
  updateUserProfile,
  userByEmail,
  userWithKeys,
} from '../shared/accounts/service.js';
import { loadConfigOrExit } from '../shared/infra/config.js';
import { createKnex } from '../shared/infra/knex.js';
import { outboundAddressPolicyOf } from '../shared/infra/outbound-address-policy.js';
import { configureUserWebhook, webhookSettings } from '../shared/webhooks/service.js';
import type { UserWebhookSettings } from '../shared/webhooks/settings-store.js';

const USAGE = `Usage:
  keys create --email EMAIL [--name NAME] [--key-name NAME] [--max-bots N] [--replace] [--quiet]
      Finds or creates the user and prints a new API key (shown only this once). With --replace,
      the user's earlier keys of that name are revoked.
  keys list --email EMAIL
      Lists the user's keys (prefixes only).
  keys revoke --id KEY_ID
      Revokes a key.
  keys webhook --email EMAIL [--url URL | --off] [--secret SECRET] [--partial-segments true|false]
      Shows the user's webhook settings (with their signing secret), or changes them first.
`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    email: { type: 'string' },
    name: { type: 'string' },
    'key-name': { type: 'string' },
    'max-bots': { type: 'string' },
    id: { type: 'string' },
    url: { type: 'string' },
    off: { type: 'boolean', default: false },
    secret: { type: 'string' },
    'partial-segments': { type: 'string' },
    replace: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n\n${USAGE}`);
  process.exit(2);
}

const command = positionals[0];
if (values.help || !command) {
  process.stdout.write(USAGE);
  process.exit(command ? 0 : 2);
}

const config = loadConfigOrExit();
const db = createKnex(config.DATABASE_URL, 2);
try {
  if (command === 'create') {
    if (!values.email || !/^[^@\s]+@[^@\s]+$/.test(values.email)) fail('--email EMAIL is required');
    let maxBots: number | undefined;
    if (values['max-bots'] !== undefined) {
      maxBots = Number(values['max-bots']);
      if (!Number.isInteger(maxBots) || maxBots < 0) fail('--max-bots must be a whole number ≥ 0');
    }
    const { user, created } = await findOrCreateUser(
      db,
      { email: values.email, name: values.name ?? null, maxConcurrentBots: maxBots },
      config.DEFAULT_MAX_CONCURRENT_BOTS,
    );
    const current =
      !created && maxBots !== undefined
        ? await updateUserProfile(db, user.id, { maxConcurrentBots: maxBots })
        : user;
    const keyName = values['key-name'] ?? 'cli';
    const issued = values.replace
      ? await replaceNamedApiKey(db, user.id, keyName)
      : { ...(await issueApiKey(db, user.id, keyName)), revoked: 0 };
    if (values.quiet) {
      process.stdout.write(`${issued.token}\n`);
    } else {
      process.stdout.write(
        `${created ? 'created' : 'found'} user ${user.id} <${user.email}> (max concurrent bots: ${current?.maxConcurrentBots})\n` +
          `new API key (id ${issued.key.id}); it is shown only once:\n${issued.token}\n` +
          (issued.revoked > 0 ? `revoked ${issued.revoked} earlier key(s) named ${keyName}\n` : ''),
      );
    }
  } else if (command === 'list') {
    if (!values.email) fail('--email EMAIL is required');
    const user = await userByEmail(db, values.email).catch(() => fail(`no user with email ${values.email}`));
    for (const key of (await userWithKeys(db, user.id)).keys) {
      process.stdout.write(
        `${key.id}\t${key.prefix}…\t${key.name ?? ''}\tcreated ${key.createdAt.toISOString()}` +
          `${key.revokedAt ? `\trevoked ${key.revokedAt.toISOString()}` : ''}\n`,
      );
    }
  } else if (command === 'revoke') {
    const id = Number(values.id);
    if (!Number.isInteger(id) || id <= 0) fail('--id KEY_ID is required');
    const key = await revokeUserApiKey(db, id).catch(() => fail(`no key with id ${id}`));
    process.stdout.write(`revoked key ${key.id} (${key.prefix}…)\n`);
  } else if (command === 'webhook') {
    if (!values.email) fail('--email EMAIL is required');
    const user = await userByEmail(db, values.email).catch(() => fail(`no user with email ${values.email}`));
    if (values.url !== undefined && values.off) fail('give --url or --off, not both');
    const partial = values['partial-segments'];
    if (partial !== undefined && partial !== 'true' && partial !== 'false')
      fail('--partial-segments must be true or false');
    const current = await webhookSettings(db, user.id);
    // Without --url or --off the endpoint stays as it is.
    const parsed = webhookSettingsRequest.safeParse({
      webhook_url: values.off ? null : (values.url ?? current?.url ?? null),
      webhook_secret: values.secret,
      webhook_partial_segments: partial === undefined ? undefined : partial === 'true',
    });
    if (!parsed.success) fail(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n'));
    let settings: UserWebhookSettings | undefined;
    try {
      settings = await configureUserWebhook(
        db,
        outboundAddressPolicyOf(config),
        user.id,
        webhookChangeOf(parsed.data),
      );
    } catch (error) {
      fail(error instanceof Error ? error.message : String(error));
    }
    process.stdout.write(
      `webhook_url: ${settings?.url ?? '(none)'}\nwebhook_secret: ${settings?.secret}\n` +
        `webhook_partial_segments: ${settings?.partialSegments}\n`,
    );
  } else {
    fail(`unknown command: ${command}`);
  }
} finally {
  await db.destroy();
}
