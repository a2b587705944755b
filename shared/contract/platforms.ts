export const PLATFORMS = ['google_meet', 'teams', 'zoom'] as const;
export type Platform = (typeof PLATFORMS)[number];

export function isPlatform(value: unknown): value is Platform {
  return typeof value === 'string' && (PLATFORMS as readonly string[]).includes(value);
}

const NATIVE_ID_PATTERNS: Record<Platform, RegExp> = {
  // Spec: three lowercase-letter groups shaped xxx-xxxx-xxx.
  google_meet: /^[a-z]{3}-[a-z]{4}-[a-z]{3}$/,
  // Spec: numeric. Teams prints meeting IDs of 9–15 digits, grouped by spaces, which we don't accept.
  teams: /^[0-9]{1,20}$/,
  // Zoom's meeting ids are 9–11 digits (printed grouped by spaces, which we don't accept).
  zoom: /^[0-9]{9,11}$/,
};

export function isValidNativeMeetingId(platform: Platform, nativeMeetingId: string): boolean {
  return NATIVE_ID_PATTERNS[platform].test(nativeMeetingId);
}

/** The platforms' own web hosts; a bot may navigate only to these or to operator-allowed origins. */
export const PLATFORM_HOSTS: Record<Platform, readonly string[]> = {
  google_meet: ['meet.google.com'],
  teams: ['teams.microsoft.com', 'teams.live.com', 'teams.cloud.microsoft'],
  zoom: ['zoom.us'],
};

/** Zoom's company ("vanity") subdomains: one DNS label under zoom.us, such as acme.zoom.us or us02web.zoom.us. */
const ZOOM_SUBDOMAIN = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.zoom\.us$/;

/** Whether `hostname` is one of the platform's own hosts (for Zoom, zoom.us or one subdomain of it). */
export function isPlatformHost(platform: Platform, hostname: string): boolean {
  if (PLATFORM_HOSTS[platform].includes(hostname)) return true;
  return platform === 'zoom' && ZOOM_SUBDOMAIN.test(hostname);
}

/** The query parameter that carries a meeting's passcode in its link: Teams' `p`, Zoom's `pwd`. */
const PASSCODE_PARAMS: Partial<Record<Platform, string>> = { teams: 'p', zoom: 'pwd' };

/**
 * The query parameters a meeting link keeps: only what joins the meeting, its passcode. Anything
 * else a caller writes there steers the page, not the meeting: Meet's `authuser` picks which signed-in
 * account joins (a number the bot account's session does not have sends it to sign-in), Zoom's
 * `uname` a name, `hl` a language (the Meet driver sets `hl=en` itself). The fragment goes too.
 */
const KEPT_PARAMS: Record<Platform, readonly string[]> = {
  google_meet: [],
  teams: ['p'],
  zoom: ['pwd'],
};

/** The URL with only the query parameters the platform needs to join (its passcode) and no fragment. */
export function normalizeMeetingUrl(platform: Platform, rawUrl: string | URL): string {
  const url = new URL(rawUrl);
  const kept = new URLSearchParams();
  for (const name of KEPT_PARAMS[platform]) {
    const value = url.searchParams.get(name);
    if (value !== null) kept.set(name, value);
  }
  url.search = kept.toString();
  url.hash = '';
  return url.toString();
}

/** The URL we use when the caller sends none (documented in docs/api.md). */
export function defaultMeetingUrl(platform: Platform, nativeMeetingId: string, passcode?: string): string {
  if (platform === 'google_meet') return `https://meet.google.com/${nativeMeetingId}`;
  const url = new URL(
    platform === 'zoom'
      ? `https://zoom.us/wc/${nativeMeetingId}/join`
      : `https://teams.microsoft.com/meet/${nativeMeetingId}`,
  );
  if (passcode) url.searchParams.set(PASSCODE_PARAMS[platform] ?? 'p', passcode);
  return url.toString();
}

export type MeetingUrlCheck = { ok: true; url: string } | { ok: false; reason: string };

/** The paths a meeting's URL may have: the meeting's own id, written exactly as the platform does. */
function meetingPaths(platform: Platform, nativeMeetingId: string): readonly string[] {
  if (platform === 'google_meet') return [`/${nativeMeetingId}`];
  if (platform === 'teams') return [`/meet/${nativeMeetingId}`];
  // Zoom: the invitation link (landing page) and the web client's own join page.
  return [`/j/${nativeMeetingId}`, `/wc/${nativeMeetingId}/join`];
}

/**
 * A meeting URL must name exactly the meeting of `nativeMeetingId`, so a bot only ever goes where
 * its id says: https on one of the platform's own hosts and its default port, or an origin the
 * operator allowed (the simulator's), with the path `/{id}` (Meet), `/meet/{id}` (Teams) or `/j/{id}`
 * or `/wc/{id}/join` (Zoom, whose hosts include one-label subdomains of zoom.us) to the letter: no
 * other case, spelling, encoding or further segments. A Teams (`p`) or Zoom (`pwd`) passcode in the
 * URL must be the one given; when the URL has none, the given one is added. Every other query
 * parameter and the fragment are dropped (normalizeMeetingUrl): the URL kept is the meeting's, not
 * the caller's choice of account, name or page.
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
    url.protocol === 'https:' && url.port === '' && isPlatformHost(platform, url.hostname);
  if (!allowedExtra && !onPlatformHost) {
    const hosts =
      PLATFORM_HOSTS[platform].join(', ') + (platform === 'zoom' ? ' (or {company}.zoom.us)' : '');
    return { ok: false, reason: `meeting_url: must be an https URL on ${hosts} (default port)` };
  }
  const expectedPaths = meetingPaths(platform, nativeMeetingId);
  if (!expectedPaths.includes(url.pathname)) {
    return {
      ok: false,
      reason: `meeting_url: the path must be ${expectedPaths.join(' or ')}, the meeting named by native_meeting_id`,
    };
  }
  const passcodeParam = PASSCODE_PARAMS[platform];
  if (passcodeParam && passcode !== undefined) {
    const inUrl = url.searchParams.get(passcodeParam);
    if (inUrl === null) url.searchParams.set(passcodeParam, passcode);
    else if (inUrl !== passcode) {
      return {
        ok: false,
        reason: `meeting_url: the passcode in the URL (${passcodeParam}) does not match passcode`,
      };
    }
  }
  return { ok: true, url: normalizeMeetingUrl(platform, url) };
}

/** A meeting named by its link: what POST /bots takes (`passcode` only when a Teams or Zoom link carries one). */
export interface MeetingLink {
  platform: Platform;
  nativeMeetingId: string;
  passcode?: string;
  /** The link as checkMeetingUrl accepts it for this meeting. */
  meetingUrl: string;
}

export type MeetingLinkParse = { ok: true; link: MeetingLink } | { ok: false; reason: string };

const ZOOM_PATH = /^\/(?:j\/([^/]+)|wc\/([^/]+)\/join)$/;

/** The platform whose paths look like this one: `/meet/{digits}` Teams, `/j/{digits}` or `/wc/{digits}/join` Zoom, `/{xxx-xxxx-xxx}` Meet. */
function platformOfPath(pathname: string): Platform | undefined {
  if (/^\/meet\/[^/]+$/.test(pathname)) return 'teams';
  if (ZOOM_PATH.test(pathname)) return 'zoom';
  if (/^\/[^/]+$/.test(pathname)) return 'google_meet';
  return undefined;
}

const LINK_SHAPES: Record<Platform, string> = {
  google_meet: '/{xxx-xxxx-xxx}',
  teams: '/meet/{digits}?p={passcode}',
  zoom: '/j/{digits} or /wc/{digits}/join (?pwd={passcode})',
};

function nativeIdOfPath(platform: Platform, pathname: string): string {
  if (platform === 'google_meet') return pathname.slice(1);
  if (platform === 'teams') return /^\/meet\/([^/]+)$/.exec(pathname)?.[1] ?? '';
  const zoom = ZOOM_PATH.exec(pathname);
  return zoom?.[1] ?? zoom?.[2] ?? '';
}

/**
 * The meeting a link names, by the same rules POST /bots applies to `meeting_url`: the platform from
 * its host (by the path's shape on an operator-allowed origin, such as the simulator's), the id from
 * its path, a Teams passcode from `p` (Zoom's from `pwd`); then checkMeetingUrl must accept it for that meeting. Teams'
 * `meetup-join` links don't carry the meeting id and are refused, as POST /bots refuses them.
 */
export function parseMeetingLink(rawUrl: string, extraOrigins: readonly string[]): MeetingLinkParse {
  let url: URL;
  try {
    url = new URL(rawUrl.trim());
  } catch {
    return { ok: false, reason: 'meeting_url: must be an absolute URL' };
  }
  const byHost = PLATFORMS.find((platform) => isPlatformHost(platform, url.hostname));
  const allowedExtra = extraOrigins.some((origin) => new URL(origin).origin === url.origin);
  const platform = byHost ?? (allowedExtra ? platformOfPath(url.pathname) : undefined);
  if (!platform) {
    const hosts = PLATFORMS.flatMap((name) => PLATFORM_HOSTS[name]).join(', ');
    return { ok: false, reason: `meeting_url: not a meeting link of a supported platform (${hosts})` };
  }
  const nativeMeetingId = nativeIdOfPath(platform, url.pathname);
  if (!isValidNativeMeetingId(platform, nativeMeetingId)) {
    return {
      ok: false,
      reason: `meeting_url: a ${platform} meeting link has the path ${LINK_SHAPES[platform]}`,
    };
  }
  const passcodeParam = PASSCODE_PARAMS[platform];
  const passcode = passcodeParam ? (url.searchParams.get(passcodeParam) ?? undefined) : undefined;
  const check = checkMeetingUrl(platform, nativeMeetingId, url.toString(), extraOrigins, passcode);
  if (!check.ok) return check;
  return {
    ok: true,
    link: { platform, nativeMeetingId, ...(passcode && { passcode }), meetingUrl: check.url },
  };
}
