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

/** A meeting named by its link: what POST /bots takes (`passcode` only when a Teams link carries one). */
export interface MeetingLink {
  platform: Platform;
  nativeMeetingId: string;
  passcode?: string;
  /** The link as checkMeetingUrl accepts it for this meeting. */
  meetingUrl: string;
}

export type MeetingLinkParse = { ok: true; link: MeetingLink } | { ok: false; reason: string };

/** The platform whose paths look like this one: `/meet/{digits}` Teams, `/{xxx-xxxx-xxx}` Meet. */
function platformOfPath(pathname: string): Platform | undefined {
  if (/^\/meet\/[^/]+$/.test(pathname)) return 'teams';
  if (/^\/[^/]+$/.test(pathname)) return 'google_meet';
  return undefined;
}

/**
 * The meeting a link names, by the same rules POST /bots applies to `meeting_url`: the platform from
 * its host (by the path's shape on an operator-allowed origin, such as the simulator's), the id from
 * its path, a Teams passcode from `p`; then checkMeetingUrl must accept it for that meeting. Teams'
 * `meetup-join` links don't carry the meeting id and are refused, as POST /bots refuses them.
 */
export function parseMeetingLink(rawUrl: string, extraOrigins: readonly string[]): MeetingLinkParse {
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    return { ok: false, reason: 'meeting_url: must be an absolute URL' };
  }
  const byHost = PLATFORMS.find((platform) => PLATFORM_HOSTS[platform].includes(url.hostname));
  const allowedExtra = extraOrigins.some((origin) => new URL(origin).origin === url.origin);
  const platform = byHost ?? (allowedExtra ? platformOfPath(url.pathname) : undefined);
  if (!platform) {
    const hosts = PLATFORMS.flatMap((name) => PLATFORM_HOSTS[name]).join(', ');
    return { ok: false, reason: `meeting_url: not a meeting link of a supported platform (${hosts})` };
  }
  const nativeMeetingId =
    platform === 'google_meet' ? url.pathname.slice(1) : (/^\/meet\/([^/]+)$/.exec(url.pathname)?.[1] ?? '');
  if (!isValidNativeMeetingId(platform, nativeMeetingId)) {
    const shape = platform === 'google_meet' ? '/{xxx-xxxx-xxx}' : '/meet/{digits}?p={passcode}';
    return { ok: false, reason: `meeting_url: a ${platform} meeting link has the path ${shape}` };
  }
  const passcode = platform === 'teams' ? (url.searchParams.get('p') ?? undefined) : undefined;
  const check = checkMeetingUrl(platform, nativeMeetingId, url.toString(), extraOrigins, passcode);
  if (!check.ok) return check;
  return {
    ok: true,
    link: { platform, nativeMeetingId, ...(passcode && { passcode }), meetingUrl: check.url },
  };
}
