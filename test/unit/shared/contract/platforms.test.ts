import { describe, expect, it } from 'vitest';
import {
  checkMeetingUrl,
  defaultMeetingUrl,
  isValidNativeMeetingId,
  normalizeMeetingUrl,
  parseMeetingLink,
} from '../../../../shared/contract/platforms.js';

describe('native meeting ids', () => {
  it.each(['abc-defg-hij', 'zzz-zzzz-zzz'])('accepts Google Meet id %s', (id) => {
    expect(isValidNativeMeetingId('google_meet', id)).toBe(true);
  });
  it.each(['abc-defg-hi', 'Abc-defg-hij', 'abc_defg_hij', 'abc-defg-hij ', 'abc-de1g-hij', 'abcdefghij'])(
    'rejects Google Meet id %j',
    (id) => expect(isValidNativeMeetingId('google_meet', id)).toBe(false),
  );
  it.each(['1', '123456789012', '93847561029384'])('accepts Teams id %s', (id) => {
    expect(isValidNativeMeetingId('teams', id)).toBe(true);
  });
  it.each(['', '12a4', '123 456', '-123', '1'.repeat(21)])('rejects Teams id %j', (id) => {
    expect(isValidNativeMeetingId('teams', id)).toBe(false);
  });
  it.each(['854123698', '8541236987', '85412369870'])('accepts Zoom id %s', (id) => {
    expect(isValidNativeMeetingId('zoom', id)).toBe(true);
  });
  it.each(['', '12345678', '123456789012', '854 1236 9870', '85412369a70', 'abc-defg-hij'])(
    'rejects Zoom id %j',
    (id) => expect(isValidNativeMeetingId('zoom', id)).toBe(false),
  );
});

describe('meeting URLs', () => {
  it('builds the default URL for each platform', () => {
    expect(defaultMeetingUrl('google_meet', 'abc-defg-hij')).toBe('https://meet.google.com/abc-defg-hij');
    expect(defaultMeetingUrl('teams', '123', 'p@ss')).toBe('https://teams.microsoft.com/meet/123?p=p%40ss');
    expect(defaultMeetingUrl('zoom', '85412369870')).toBe('https://zoom.us/wc/85412369870/join');
    expect(defaultMeetingUrl('zoom', '85412369870', 'Xy 1')).toBe(
      'https://zoom.us/wc/85412369870/join?pwd=Xy+1',
    );
  });

  it('accepts the platform hosts over https and the operator origins', () => {
    expect(
      checkMeetingUrl('google_meet', 'abc-defg-hij', 'https://meet.google.com/abc-defg-hij?authuser=0', []),
    ).toEqual({
      ok: true,
      url: 'https://meet.google.com/abc-defg-hij',
    });
    expect(checkMeetingUrl('teams', '123', 'https://teams.live.com/meet/123?p=x', []).ok).toBe(true);
    expect(
      checkMeetingUrl('google_meet', 'abc-defg-hij', 'http://127.0.0.1:4100/abc-defg-hij', [
        'http://127.0.0.1:4100',
      ]).ok,
    ).toBe(true);
  });

  it.each([
    ['http on the platform host', 'google_meet', 'abc-defg-hij', 'http://meet.google.com/abc-defg-hij'],
    ['a look-alike host', 'google_meet', 'abc-defg-hij', 'https://meet.google.com.evil.io/abc-defg-hij'],
    ['the other platform', 'teams', '123', 'https://meet.google.com/abc-defg-hij'],
    ['credentials', 'google_meet', 'abc-defg-hij', 'https://user:pw@meet.google.com/abc-defg-hij'],
    ['another meeting id', 'google_meet', 'abc-defg-hij', 'https://meet.google.com/xyz-defg-hij'],
    ['another Teams id', 'teams', '123', 'https://teams.live.com/meet/456?p=x'],
    [
      'a port on an allowed host not listed',
      'google_meet',
      'abc-defg-hij',
      'http://127.0.0.1:4101/abc-defg-hij',
    ],
    ['no URL at all', 'google_meet', 'abc-defg-hij', 'meet.google.com/abc-defg-hij'],
    // A bot only ever goes to the meeting its id names (each of these was once accepted).
    [
      'another meeting, then a segment',
      'google_meet',
      'abc-defg-hij',
      'https://meet.google.com/xyz-abcd-efg/x',
    ],
    ['another meeting in capitals', 'google_meet', 'abc-defg-hij', 'https://meet.google.com/XYZ-ABCD-EFG'],
    ['another meeting without dashes', 'google_meet', 'abc-defg-hij', 'https://meet.google.com/xyzabcdefg'],
    [
      'another meeting, percent-encoded',
      'google_meet',
      'abc-defg-hij',
      'https://meet.google.com/%78yz-abcd-efg',
    ],
    ['its own id in capitals', 'google_meet', 'abc-defg-hij', 'https://meet.google.com/ABC-DEFG-HIJ'],
    ['its own id, percent-encoded', 'google_meet', 'abc-defg-hij', 'https://meet.google.com/%61bc-defg-hij'],
    ['its own id, then a segment', 'google_meet', 'abc-defg-hij', 'https://meet.google.com/abc-defg-hij/x'],
    ['another Teams meeting, then a segment', 'teams', '1234', 'https://teams.microsoft.com/meet/5678/x'],
    ['its own Teams id, then a segment', 'teams', '1234', 'https://teams.microsoft.com/meet/1234/x'],
    [
      'a Teams link without the meeting id',
      'teams',
      '1',
      'https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0',
    ],
    ['the root of the host', 'google_meet', 'abc-defg-hij', 'https://meet.google.com/'],
    ['port 22', 'google_meet', 'abc-defg-hij', 'https://meet.google.com:22/abc-defg-hij'],
    ['port 444', 'teams', '1234', 'https://teams.microsoft.com:444/meet/1234?p=x'],
    ['another passcode', 'teams', '1234', 'https://teams.microsoft.com/meet/1234?p=other'],
    ['another Zoom meeting', 'zoom', '854123698', 'https://zoom.us/j/854123699'],
    ['another Zoom meeting in the web client', 'zoom', '854123698', 'https://zoom.us/wc/854123699/join'],
    ['its own Zoom id, then a segment', 'zoom', '854123698', 'https://zoom.us/j/854123698/x'],
    ['the web client without /join', 'zoom', '854123698', 'https://zoom.us/wc/854123698'],
    ['a Zoom personal link', 'zoom', '854123698', 'https://zoom.us/my/acme'],
    ['a Zoom start link', 'zoom', '854123698', 'https://zoom.us/s/854123698'],
    ['a look-alike of zoom.us', 'zoom', '854123698', 'https://zoom.us.evil.io/j/854123698'],
    ['a host ending in zoom.us', 'zoom', '854123698', 'https://evilzoom.us/j/854123698'],
    ['two labels under zoom.us', 'zoom', '854123698', 'https://a.b.zoom.us/j/854123698'],
    ['http on zoom.us', 'zoom', '854123698', 'http://zoom.us/j/854123698'],
    ['another Zoom passcode', 'zoom', '854123698', 'https://zoom.us/j/854123698?pwd=other'],
    ['a Zoom link for a Teams meeting', 'teams', '854123698', 'https://zoom.us/j/854123698'],
  ] as const)('rejects %s', (_label, platform, id, url) => {
    const result = checkMeetingUrl(platform, id, url, ['http://127.0.0.1:4100'], 'x');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(/^meeting_url: /);
  });

  it.each([
    'https://zoom.us/j/854123698?pwd=x',
    'https://zoom.us/wc/854123698/join?pwd=x',
    'https://acme.zoom.us/j/854123698?pwd=x',
    'http://127.0.0.1:4100/j/854123698?pwd=x',
  ])('accepts the Zoom link %s', (url) => {
    expect(checkMeetingUrl('zoom', '854123698', url, ['http://127.0.0.1:4100'], 'x')).toEqual({
      ok: true,
      url,
    });
  });

  it('adds a missing Zoom passcode as pwd, and takes a Zoom link without one when none is given', () => {
    expect(checkMeetingUrl('zoom', '854123698', 'https://zoom.us/j/854123698', [], 'Pw 1')).toEqual({
      ok: true,
      url: 'https://zoom.us/j/854123698?pwd=Pw+1',
    });
    expect(checkMeetingUrl('zoom', '854123698', 'https://acme.zoom.us/j/854123698', [])).toEqual({
      ok: true,
      url: 'https://acme.zoom.us/j/854123698',
    });
  });

  it('accepts the default port written out, and adds a missing Teams passcode', () => {
    expect(
      checkMeetingUrl('google_meet', 'abc-defg-hij', 'https://meet.google.com:443/abc-defg-hij', []),
    ).toEqual({
      ok: true,
      url: 'https://meet.google.com/abc-defg-hij',
    });
    expect(checkMeetingUrl('teams', '1234', 'https://teams.microsoft.com/meet/1234', [], 'Pw 1')).toEqual({
      ok: true,
      url: 'https://teams.microsoft.com/meet/1234?p=Pw+1',
    });
  });
});

describe('meeting URLs keep only the query parameters that join the meeting', () => {
  const SIMULATOR = ['http://127.0.0.1:4100'];

  it.each([
    // Meet needs none: authuser would pick an account the bot's session does not have, hl the UI's
    // language (the driver sets hl=en itself), the rest steers the page.
    [
      'google_meet',
      'abc-defg-hij',
      'https://meet.google.com/abc-defg-hij?authuser=3&hl=de&pli=1#settings',
      'https://meet.google.com/abc-defg-hij',
    ],
    [
      'google_meet',
      'abc-defg-hij',
      'http://127.0.0.1:4100/abc-defg-hij?authuser=user%40example.com',
      'http://127.0.0.1:4100/abc-defg-hij',
    ],
    // Teams: the passcode p, nothing else (anon, lightExperience, tenant hints).
    [
      'teams',
      '93847561029384',
      'https://teams.microsoft.com/meet/93847561029384?anon=true&p=Xy12Ab&tenantId=x&login_hint=a%40b.c',
      'https://teams.microsoft.com/meet/93847561029384?p=Xy12Ab',
    ],
    [
      'teams',
      '5551234',
      'http://127.0.0.1:4100/meet/5551234?lightExperience=true&p=pw#/pre-join',
      'http://127.0.0.1:4100/meet/5551234?p=pw',
    ],
    // Zoom: the passcode pwd, nothing else (uname, tk, the web client's switches).
    [
      'zoom',
      '854123698',
      'https://us02web.zoom.us/wc/854123698/join?uname=Notes&pwd=x&from=join&_x_zm_rtaid=1',
      'https://us02web.zoom.us/wc/854123698/join?pwd=x',
    ],
    ['zoom', '854123698', 'https://zoom.us/j/854123698?uname=Notes', 'https://zoom.us/j/854123698'],
  ] as const)('%s: %s is kept as %s', (platform, id, url, kept) => {
    expect(checkMeetingUrl(platform, id, url, SIMULATOR)).toEqual({ ok: true, url: kept });
    expect(normalizeMeetingUrl(platform, url)).toBe(kept);
  });

  it('keeps the passcode the caller gave beside a link without one, and drops the rest', () => {
    expect(
      checkMeetingUrl('teams', '1234', 'https://teams.microsoft.com/meet/1234?authuser=1', [], 'Pw1'),
    ).toEqual({ ok: true, url: 'https://teams.microsoft.com/meet/1234?p=Pw1' });
    expect(checkMeetingUrl('zoom', '854123698', 'https://zoom.us/j/854123698?tk=abc', [], 'Pw1')).toEqual({
      ok: true,
      url: 'https://zoom.us/j/854123698?pwd=Pw1',
    });
  });

  it('does not take a passcode parameter of another platform', () => {
    // Meet has no passcode: a p or pwd on its link is dropped like any other parameter.
    expect(normalizeMeetingUrl('google_meet', 'https://meet.google.com/abc-defg-hij?p=1&pwd=2')).toBe(
      'https://meet.google.com/abc-defg-hij',
    );
    expect(normalizeMeetingUrl('teams', 'https://teams.live.com/meet/1234?pwd=2')).toBe(
      'https://teams.live.com/meet/1234',
    );
    expect(normalizeMeetingUrl('zoom', 'https://zoom.us/j/854123698?p=1')).toBe(
      'https://zoom.us/j/854123698',
    );
  });

  it('gives a link read from a calendar or the MCP tool the same kept form', () => {
    expect(
      parseMeetingLink('https://meet.google.com/abc-defg-hij?authuser=2&hl=fr', SIMULATOR),
    ).toMatchObject({ ok: true, link: { meetingUrl: 'https://meet.google.com/abc-defg-hij' } });
    expect(
      parseMeetingLink('https://acme.zoom.us/j/85412369870?pwd=Xy12Ab&uname=Mallory', SIMULATOR),
    ).toMatchObject({
      ok: true,
      link: { passcode: 'Xy12Ab', meetingUrl: 'https://acme.zoom.us/j/85412369870?pwd=Xy12Ab' },
    });
  });
});

describe('meeting links (parse_meeting_link)', () => {
  const SIMULATOR = ['http://127.0.0.1:4100'];

  it.each([
    [
      'https://meet.google.com/abc-defg-hij',
      {
        platform: 'google_meet',
        nativeMeetingId: 'abc-defg-hij',
        meetingUrl: 'https://meet.google.com/abc-defg-hij',
      },
    ],
    [
      '  https://meet.google.com/abc-defg-hij?authuser=1  ',
      {
        platform: 'google_meet',
        nativeMeetingId: 'abc-defg-hij',
        meetingUrl: 'https://meet.google.com/abc-defg-hij',
      },
    ],
    [
      'https://teams.microsoft.com/meet/93847561029384?p=Xy12Ab',
      {
        platform: 'teams',
        nativeMeetingId: '93847561029384',
        passcode: 'Xy12Ab',
        meetingUrl: 'https://teams.microsoft.com/meet/93847561029384?p=Xy12Ab',
      },
    ],
    [
      'https://teams.live.com/meet/1234',
      { platform: 'teams', nativeMeetingId: '1234', meetingUrl: 'https://teams.live.com/meet/1234' },
    ],
    [
      'http://127.0.0.1:4100/meet/5551234?p=pw',
      {
        platform: 'teams',
        nativeMeetingId: '5551234',
        passcode: 'pw',
        meetingUrl: 'http://127.0.0.1:4100/meet/5551234?p=pw',
      },
    ],
    [
      'https://acme.zoom.us/j/85412369870?pwd=Xy12Ab',
      {
        platform: 'zoom',
        nativeMeetingId: '85412369870',
        passcode: 'Xy12Ab',
        meetingUrl: 'https://acme.zoom.us/j/85412369870?pwd=Xy12Ab',
      },
    ],
    [
      'https://zoom.us/wc/854123698/join',
      { platform: 'zoom', nativeMeetingId: '854123698', meetingUrl: 'https://zoom.us/wc/854123698/join' },
    ],
    [
      'http://127.0.0.1:4100/wc/854123698/join?pwd=pw',
      {
        platform: 'zoom',
        nativeMeetingId: '854123698',
        passcode: 'pw',
        meetingUrl: 'http://127.0.0.1:4100/wc/854123698/join?pwd=pw',
      },
    ],
    [
      'http://127.0.0.1:4100/sim-ulat-ion',
      {
        platform: 'google_meet',
        nativeMeetingId: 'sim-ulat-ion',
        meetingUrl: 'http://127.0.0.1:4100/sim-ulat-ion',
      },
    ],
  ])('reads %s', (url, link) => {
    expect(parseMeetingLink(url, SIMULATOR)).toEqual({ ok: true, link });
  });

  it.each([
    ['not a URL', 'abc-defg-hij', /^meeting_url: must be an absolute URL$/],
    [
      'another site',
      'https://zoom.example.com/j/123',
      /^meeting_url: not a meeting link of a supported platform/,
    ],
    ['an origin the operator did not allow', 'http://127.0.0.1:4101/abc-defg-hij', /not a meeting link/],
    [
      'a Meet path that is no meeting id',
      'https://meet.google.com/landing',
      /has the path \/\{xxx-xxxx-xxx\}/,
    ],
    ['a Meet id in capitals', 'https://meet.google.com/ABC-DEFG-HIJ', /has the path/],
    [
      'a Teams link without the meeting id',
      'https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0',
      /a teams meeting link has the path \/meet\/\{digits\}/,
    ],
    [
      'plain http on the platform host',
      'http://meet.google.com/abc-defg-hij',
      /^meeting_url: must be an https URL/,
    ],
    ['credentials', 'https://user:pw@meet.google.com/abc-defg-hij', /must not contain credentials/],
    ['a Zoom personal link', 'https://zoom.us/my/acme', /a zoom meeting link has the path \/j\/\{digits\}/],
    ['a Zoom id too short', 'https://acme.zoom.us/j/12345', /a zoom meeting link has the path/],
    ['a look-alike of zoom.us', 'https://zoom.us.evil.io/j/854123698', /not a meeting link/],
  ])('refuses %s', (_label, url, reason) => {
    const result = parseMeetingLink(url, SIMULATOR);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.reason).toMatch(reason);
  });

  it('gives what POST /bots accepts for the same link', () => {
    const result = parseMeetingLink('https://teams.microsoft.com/meet/42?p=abc', []);
    if (!result.ok) throw new Error(result.reason);
    const { platform, nativeMeetingId, passcode, meetingUrl } = result.link;
    expect(checkMeetingUrl(platform, nativeMeetingId, meetingUrl, [], passcode)).toEqual({
      ok: true,
      url: meetingUrl,
    });
  });
});
