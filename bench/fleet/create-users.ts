/**
 * The fleet's users, one per --meetings-per-user meetings (max_concurrent_bots just enough), each
 * with an API key and, with --webhooks on, the bench's receiver as its webhook.
 */
import { callApi } from './api-client.js';
import type { FleetOptions } from './options.js';
import type { Services } from './start-services.js';

export interface FleetUser {
  id: number;
  key: string;
  meetings: number;
}

export async function createUsers(options: FleetOptions, services: Services): Promise<FleetUser[]> {
  const { adminKey, receiver } = services;
  const users: FleetUser[] = [];
  for (let index = 0; index * options.perUser < options.meetings; index += 1) {
    const meetings = Math.min(options.perUser, options.meetings - index * options.perUser);
    const base = services.apis[0]!.url;
    const created = await callApi(base, 'POST', '/admin/users', {
      admin: adminKey,
      json: { email: `fleet-${index}@example.com`, max_concurrent_bots: meetings },
    });
    if (created.status !== 201)
      throw new Error(`POST /admin/users: ${created.status} ${JSON.stringify(created.body)}`);
    const token = await callApi(base, 'POST', `/admin/users/${created.body.id}/tokens`, { admin: adminKey });
    if (token.status !== 201) throw new Error(`POST tokens: ${token.status} ${JSON.stringify(token.body)}`);
    const key = String(token.body.token);
    if (options.webhooks) {
      const hook = await callApi(base, 'PUT', '/user/webhook', { key, json: { webhook_url: receiver.url } });
      if (hook.status !== 200)
        throw new Error(`PUT /user/webhook: ${hook.status} ${JSON.stringify(hook.body)}`);
    }
    users.push({ id: created.body.id, key, meetings });
  }
  return users;
}
