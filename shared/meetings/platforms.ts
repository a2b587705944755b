export const PLATFORMS = ['google_meet', 'teams'] as const;
export type Platform = (typeof PLATFORMS)[number];

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (PLATFORMS as readonly string[]).includes(value);
}

const NATIVE_ID_PATTERNS: Record<Platform, RegExp> = {
  // Spec: three lowercase-letter groups shaped xxx-xxxx-xxx.
  google_meet: /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/,
  // Spec: numeric. Teams prints meeting IDs of 9–15 digits, grouped by spaces, which we don't accept.
  teams: /^[0-9]{1,20}$/,
};

export function isValidNativeMeetingId(platform: Platform, nativeMeetingId: string): boolean {
  return NATIVE_ID_PATTERNS[platform].test(nativeMeetingId);
}

/** The platforms' own web hosts; a bot may navigate only to these or to operator-allowed origins. */
export const PLATFORM_HOSTS: Record<Platform, readonly string[]> = {
  google_meet: ['meet.google.com'],
  teams: ['teams.microsoft.com', 'teams.live.com', 'teams.cloud.microsoft'],
};

/** The URL we use when the caller sends none (documented in the README). */
export function defaultMeetingUrl(platform: Platform, nativeMeetingId: string, passcode?: string): string {
  if (platform === 'google_meet') return `https://meet.google.com/${nativeMeetingId}`;
  const url = new URL(`https://teams.microsoft.com/meet/${nativeMeetingId}`);
  if (passcode) url.searchParams.set('p', passcode);
  return url.toString();
}

export type MeetingUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/**
 * A meeting URL must be https on the platform's own hosts, or start with an origin the operator
 * allowed (the simulator's). When the URL's path carries a meeting id it must be the one requested,
 * so a caller can't record one meeting under another's id.
 */
export function checkMeetingUrl(
  platform: Platform,
  nativeMeetingId: string,
  rawUrl: string,
  extraOrigins: readonly string[],
): MeetingUrlCheck {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: 'meeting_url: must be an absolute URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'meeting_url: must not contain credentials' };
  const allowedExtra = extraOrigins.some((origin) => new URL(origin).origin === url.origin);
  const onPlatformHost = url.protocol === 'https:' && PLATFORM_HOSTS[platform].includes(url.hostname);
  if (!allowedExtra && !onPlatformHost) {
    return {
      ok: false,
      reason: `meeting_url: must be an https URL on ${PLATFORM_HOSTS[platform].join(', ')}`,
    };
  }
  const idInPath = meetingIdInPath(platform, url.pathname);
  if (idInPath !== undefined && idInPath !== nativeMeetingId) {
    return { ok: false, reason: 'meeting_url: the meeting id in the URL does not match native_meeting_id' };
  }
  return { ok: true, url: url.toString() };
}

function meetingIdInPath(platform: Platform, pathname: string): string | undefined {
  if (platform === 'google_meet') {
    const match = /^\/([a-z]{3}-[a-z]{4}-[a-z]{3})\/?$/.exec(pathname);
    return match?.[1];
  }
  const match = /^\/meet\/([0-9]+)\/?$/.exec(pathname);
  return match?.[1];
}
