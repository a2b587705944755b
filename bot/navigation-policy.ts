import type { Platform } from '../shared/contract/platforms.js';

/** Hosts each platform serves meetings from; subdomains count as the platform's own. */
const PLATFORM_HOSTS: Record<Platform, readonly string[]> = {
  google_meet: ['meet.google.com'],
  teams: ['teams.microsoft.com', 'teams.live.com', 'teams.cloud.microsoft'],
  zoom: ['zoom.us'],
};

/** Being sent to one of these means the meeting wants a signed-in account. */
const SIGN_IN_HOSTS = [
  'accounts.google.com',
  'login.microsoftonline.com',
  'login.live.com',
  'login.microsoft.com',
];

export type NavigationVerdict = 'allow' | 'sign_in_required' | 'blocked';

export interface NavigationPolicy {
  verdict(url: string): NavigationVerdict;
}

function hostMatches(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * Decides where the bot's top-level page may go: the platform's own hosts and the operator's extra
 * origins. Everything else ends the session, as sign_in_required when it is a known sign-in host.
 */
export function createNavigationPolicy(
  platform: Platform,
  extraAllowedOrigins: readonly string[],
): NavigationPolicy {
  const extraOrigins = new Set(extraAllowedOrigins.map((origin) => new URL(origin).origin));
  return {
    verdict(url) {
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return 'blocked';
      }
      if (parsed.href === 'about:blank') return 'allow';
      if (extraOrigins.has(parsed.origin)) return 'allow';
      const host = parsed.hostname.toLowerCase();
      if (SIGN_IN_HOSTS.some((domain) => hostMatches(host, domain))) return 'sign_in_required';
      if (
        parsed.protocol === 'https:' &&
        PLATFORM_HOSTS[platform].some((domain) => hostMatches(host, domain))
      ) {
        return 'allow';
      }
      return 'blocked';
    },
  };
}
