import { describe, expect, it } from 'vitest';
import { fieldOfError } from '../../../web/src/field-errors.js';
import { parseMeetingLink } from '../../../web/src/meeting-link.js';

describe('the send-bot form’s link', () => {
  it('reads Meet and Teams links (and the simulator’s look-alikes) without fetching them', () => {
    expect(parseMeetingLink(' https://meet.google.com/abc-defg-hij ')).toEqual({
      platform: 'google_meet',
      native_meeting_id: 'abc-defg-hij',
      meeting_url: 'https://meet.google.com/abc-defg-hij',
    });
    expect(parseMeetingLink('meet.google.com/abc-defg-hij')).toMatchObject({
      native_meeting_id: 'abc-defg-hij',
    });
    expect(parseMeetingLink('https://teams.microsoft.com/meet/9387456120384?p=Xy12ab')).toEqual({
      platform: 'teams',
      native_meeting_id: '9387456120384',
      passcode: 'Xy12ab',
      meeting_url: 'https://teams.microsoft.com/meet/9387456120384?p=Xy12ab',
    });
    expect(parseMeetingLink('http://127.0.0.1:4100/meet/123?p=abc')).toMatchObject({ platform: 'teams' });
  });

  it('reads Zoom links: the invitation, the web client and company subdomains, the passcode optional', () => {
    expect(parseMeetingLink('https://acme.zoom.us/j/85412369870?pwd=Xy12ab')).toEqual({
      platform: 'zoom',
      native_meeting_id: '85412369870',
      passcode: 'Xy12ab',
      meeting_url: 'https://acme.zoom.us/j/85412369870?pwd=Xy12ab',
    });
    expect(parseMeetingLink('https://zoom.us/wc/854123698/join')).toEqual({
      platform: 'zoom',
      native_meeting_id: '854123698',
      meeting_url: 'https://zoom.us/wc/854123698/join',
    });
    expect(parseMeetingLink('https://zoom.us/j/12345')).toHaveProperty('error');
    expect(parseMeetingLink('https://zoom.us/my/acme')).toHaveProperty('error');
  });

  it('says what is wrong with anything else', () => {
    expect(parseMeetingLink('')).toEqual({ error: 'Paste the meeting link' });
    expect(parseMeetingLink('https://teams.microsoft.com/meet/123')).toEqual({
      error: 'A Teams link needs its passcode (the p=… part of the link)',
    });
    expect(parseMeetingLink('https://meet.google.com/ABC-defg-hij')).toHaveProperty('error');
    expect(parseMeetingLink('https://example.com/x')).toHaveProperty('error');
    expect(parseMeetingLink('http://[')).toEqual({ error: 'This is not a link' });
  });

  it('puts each API error on the field it names', () => {
    expect(fieldOfError('language: the embedded engine transcribes only en; set …')).toBe('language');
    expect(fieldOfError('meeting_url: must be an https URL on meet.google.com (default port)')).toBe('link');
    expect(fieldOfError('Invalid meeting ID format')).toBe('link');
    expect(fieldOfError('passcode: is required for Teams meetings')).toBe('link');
    expect(fieldOfError('bot_name: must not contain NUL (\\u0000) characters')).toBe('bot_name');
    expect(fieldOfError('Maximum concurrent bots limit reached')).toBe('form');
    expect(fieldOfError('data.participants[1]: must be a string')).toBe('form');
  });
});
