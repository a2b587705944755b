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

/** The URL we use when the caller sends none (documented in docs/api.md). */
export function defaultMeetingUrl(platform: Platform, nativeMeetingId: string, passcode?: string): string {
  if (platform === 'google_meet') return `https://meet.google.com/${nativeMeetingId}`;
  const url = new URL(`https://teams.microsoft.com/meet/${nativeMeetingId}`);
  if (passcode) url.searchParams.set('p', passcode);
  return url.toString();
}

export type MeetingUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/** The one path a meeting's URL may have: the meeting's own id, written exactly as the platform does. */
function meetingPath(platform: Platform, nativeMeetingId: string): string {
  return platform === 'google_meet' ? `/${nativeMeetingId}` : `/meet/${nativeMeetingId}`;
}

/**
 * A meeting URL must name exactly the meeting of `nativeMeetingId`, so a bot only ever goes where
 * its id says: https on one of the platform's own hosts and its default port, or an origin the
 * operator allowed (the simulator's), with the path `/{id}` (Meet) or `/meet/{id}` (Teams) to the
 * letter: no other case, spelling, encoding or further segments. A Teams passcode in the URL must be
 * the one given; when the URL has none, the given one is added. Query parameters otherwise stay.
 */
export function checkMeetingUrl(
  platform: Platform,
  nativeMeetingId: string,
  rawUrl: string,
  extraOrigins: readonly string[],
  passcode?: string,
): MeetingUrlCheck {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: 'meeting_url: must be an absolute URL' };
  }
  if (url.username || url.password) return { ok: false, reason: 'meeting_url: must not contain credentials' };
  const allowedExtra = extraOrigins.some((origin) => new URL(origin).origin === url.origin);
  const onPlatformHost =
    url.protocol === 'https:' && url.port === '' && PLATFORM_HOSTS[platform].includes(url.hostname);
  if (!allowedExtra && !onPlatformHost) {
    return {
      ok: false,
      reason: `meeting_url: must be an https URL on ${PLATFORM_HOSTS[platform].join(', ')} (default port)`,
    };
  }
  const expectedPath = meetingPath(platform, nativeMeetingId);
  if (url.pathname !== expectedPath) {
    return {
      ok: false,
      reason: `meeting_url: the path must be ${expectedPath}, the meeting named by native_meeting_id`,
    };
  }
  if (platform === 'teams' && passcode !== undefined) {
    const inUrl = url.searchParams.get('p');
    if (inUrl === null) url.searchParams.set('p', passcode);
    else if (inUrl !== passcode) {
      return { ok: false, reason: 'meeting_url: the passcode in the URL (p) does not match passcode' };
    }
  }
  return { ok: true, url: url.toString() };
}
