import { notFound } from './errors.js';
import type { Access } from './schema.js';

/** The meeting's accounts (its `access`): whose session cookie still signs a page in. */
export class MeetingAccounts {
  /** Accounts whose session cookie no longer signs in (`access.accounts[].expired`, or expired since). */
  private readonly expired = new Set<string>();

  constructor(private readonly accounts: Access['accounts']) {
    for (const account of accounts) if (account.expired) this.expired.add(account.name);
  }

  /** The account a session cookie signs in as, or null (no cookie, unknown or expired). */
  signedInAs(token: string | null): string | null {
    if (token === null) return null;
    const account = this.accounts.find((candidate) => candidate.token === token);
    if (!account || this.expired.has(account.name)) return null;
    return account.name;
  }

  /** The account's cookie stops signing in from the next page load on. */
  expire(name: string): void {
    if (!this.accounts.some((account) => account.name === name)) throw notFound(`account ${name}`);
    this.expired.add(name);
  }

  /** The accounts by name, for the state API (their tokens stay in the script). */
  snapshot(): { name: string; expired: boolean }[] {
    return this.accounts.map((account) => ({
      name: account.name,
      expired: this.expired.has(account.name),
    }));
  }
}
