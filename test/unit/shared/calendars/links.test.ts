import { describe, expect, it } from 'vitest';
import type { FeedOccurrence } from '../../../../shared/calendars/ics.js';
import { findMeetingLink, hasMarker } from '../../../../shared/calendars/links.js';
import { occurrenceKey, planFeed } from '../../../../shared/calendars/plan.js';

function occurrence(fields: Partial<FeedOccurrence>): FeedOccurrence {
  return {
    uid: 'event-1',
    recurrenceId: null,
    start: new Date('2026-11-05T10:00:00Z'),
    end: new Date('2026-11-05T11:00:00Z'),
    summary: '',
    description: '',
    location: '',
    url: '',
    conference: [],
    ...fields,
  };
}

describe('findMeetingLink', () => {
  it('finds Meet and Teams links, conference fields first, then URL, location, description', () => {
    const found = findMeetingLink(
      occurrence({
        conference: ['https://meet.google.com/abc-defg-hij'],
        description: 'Join https://meet.google.com/zzz-zzzz-zzz',
      }),
      [],
    );
    expect(found).toEqual({
      ok: true,
      link: {
        platform: 'google_meet',
        nativeMeetingId: 'abc-defg-hij',
        meetingUrl: 'https://meet.google.com/abc-defg-hij',
      },
    });
    const teams = findMeetingLink(
      occurrence({ location: 'Microsoft Teams (https://teams.live.com/meet/9312345678901?p=Ab3dEf).' }),
      [],
    );
    expect(teams).toMatchObject({
      ok: true,
      link: { platform: 'teams', nativeMeetingId: '9312345678901', passcode: 'Ab3dEf' },
    });
    const inText = findMeetingLink(
      occurrence({
        description: 'Agenda: https://example.com/doc\n<https://meet.google.com/qrs-tuvw-xyz?authuser=0>',
      }),
      [],
    );
    expect(inText).toMatchObject({ ok: true, link: { nativeMeetingId: 'qrs-tuvw-xyz' } });
  });

  it('finds Zoom invitation links, company subdomains too, and names a Zoom link that names no meeting', () => {
    expect(
      findMeetingLink(
        occurrence({ description: 'Join Zoom Meeting\nhttps://acme.zoom.us/j/85412369870?pwd=aBcD12.1\n' }),
        [],
      ),
    ).toEqual({
      ok: true,
      link: {
        platform: 'zoom',
        nativeMeetingId: '85412369870',
        passcode: 'aBcD12.1',
        meetingUrl: 'https://acme.zoom.us/j/85412369870?pwd=aBcD12.1',
      },
    });
    expect(findMeetingLink(occurrence({ location: 'https://zoom.us/my/acme.room' }), [])).toEqual({
      ok: false,
      reason: 'a Zoom link that names no meeting (/j/{id} or /wc/{id}/join)',
    });
  });

  it('reads a Teams meetup-join invitation by the meeting ID and passcode printed beside it', () => {
    const description = [
      'Microsoft Teams meeting',
      'Join: https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0?context=%7b%7d',
      'Meeting ID: 312 456 789 012',
      'Passcode: xY7zQ2',
    ].join('\n');
    expect(findMeetingLink(occurrence({ description }), [])).toEqual({
      ok: true,
      link: {
        platform: 'teams',
        nativeMeetingId: '312456789012',
        passcode: 'xY7zQ2',
        meetingUrl: 'https://teams.microsoft.com/meet/312456789012?p=xY7zQ2',
      },
    });
    const bare = findMeetingLink(
      occurrence({ description: 'https://teams.microsoft.com/l/meetup-join/19%3ameeting_abc%40thread.v2/0' }),
      [],
    );
    expect(bare).toEqual({
      ok: false,
      reason: 'a Teams meetup-join link without the meeting ID and passcode beside it',
    });
  });

  it("takes the simulator's links only where the operator allows its origin, as POST /bots does", () => {
    const simulated = occurrence({ location: 'http://127.0.0.1:4100/abc-defg-hij' });
    expect(findMeetingLink(simulated, []).ok).toBe(false);
    expect(findMeetingLink(simulated, ['http://127.0.0.1:4100'])).toMatchObject({
      ok: true,
      link: {
        platform: 'google_meet',
        nativeMeetingId: 'abc-defg-hij',
        meetingUrl: 'http://127.0.0.1:4100/abc-defg-hij',
      },
    });
    expect(
      findMeetingLink(occurrence({ location: 'https://meet.google.com.evil.example/abc-defg-hij' }), []).ok,
    ).toBe(false);
    expect(findMeetingLink(occurrence({ description: 'Lunch at noon' }), [])).toEqual({
      ok: false,
      reason: 'no Google Meet, Teams or Zoom link',
    });
  });
});

describe('hasMarker and planFeed', () => {
  it('matches the marker word case-insensitively, never inside a longer word', () => {
    expect(hasMarker(occurrence({ summary: 'Weekly sync #NoteTaker' }), '#notetaker')).toBe(true);
    expect(hasMarker(occurrence({ description: 'please record (#notetaker).' }), '#notetaker')).toBe(true);
    expect(hasMarker(occurrence({ summary: 'Weekly sync #notetakers' }), '#notetaker')).toBe(false);
    expect(hasMarker(occurrence({ summary: 'Weekly sync' }), '#notetaker')).toBe(false);
  });

  it('plans the occurrences with links that the feed takes, keyed by feed, UID and recurrence', () => {
    const marked = occurrence({
      uid: 'a',
      summary: 'Review #notetaker',
      location: 'https://meet.google.com/abc-defg-hij',
    });
    const unmarked = occurrence({ uid: 'b', location: 'https://meet.google.com/bcd-efgh-ijk' });
    const recurring = occurrence({
      uid: 'c',
      recurrenceId: '20261105T100000Z',
      summary: '#notetaker',
      location: 'https://meet.google.com/cde-fghi-jkl',
    });
    const noLink = occurrence({ uid: 'd', summary: '#notetaker lunch' });
    const expansion = { occurrences: [marked, unmarked, recurring, noLink], skipped: [], truncated: false };
    const all = planFeed({ id: 7, events: 'all', marker: '#notetaker' }, expansion, []);
    expect(all.planned.map((item) => item.key)).toEqual([
      'feed:7:a',
      'feed:7:b',
      'feed:7:c:20261105T100000Z',
    ]);
    const only = planFeed({ id: 7, events: 'marked', marker: '#notetaker' }, expansion, []);
    expect(only.planned.map((item) => item.key)).toEqual(['feed:7:a', 'feed:7:c:20261105T100000Z']);
    expect(only.notes).toEqual([]);
    expect(occurrenceKey(7, { uid: 'x'.repeat(300), recurrenceId: null })).toMatch(
      /^feed:7:sha256-[0-9a-f]{64}$/,
    );
  });
});
