import { describe, expect, it } from 'vitest';
import { negotiate } from '../../../api/routes/transcripts/accept.js';
import { FORMAT_MEDIA_TYPES, TRANSCRIPT_FORMATS } from '../../../shared/transcripts/export-formats.js';

const offers = TRANSCRIPT_FORMATS.map((id) => ({ id, mediaTypes: FORMAT_MEDIA_TYPES[id] }));

describe('negotiate (Accept → transcript format)', () => {
  it.each([
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/*', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'json'],
    ['image/png, */*;q=0.1', 'json'],
    ['text/plain', 'txt'],
    ['text/plain; charset=utf-8', 'txt'],
    ['TEXT/Plain', 'txt'],
    ['text/*', 'txt'],
    ['application/x-subrip', 'srt'],
    ['text/srt', 'srt'],
    ['text/vtt', 'vtt'],
    ['text/vtt;charset=utf-8;q=0.5', 'vtt'],
  ] as const)('%j → %s', (accept, format) => {
    expect(negotiate(accept, offers)).toBe(format);
  });

  it('prefers the higher q, then the type named outright, then the client order', () => {
    expect(negotiate('application/json;q=0.5, text/vtt', offers)).toBe('vtt');
    expect(negotiate('text/vtt;q=0.4, text/plain;q=0.6', offers)).toBe('txt');
    expect(negotiate('*/*, text/vtt', offers)).toBe('vtt');
    expect(negotiate('text/*, text/vtt', offers)).toBe('vtt');
    expect(negotiate('text/plain, application/json', offers)).toBe('txt');
    expect(negotiate('application/json, text/plain', offers)).toBe('json');
  });

  it('lets a specific q=0 refuse a type a wildcard would allow', () => {
    expect(negotiate('text/plain;q=0, text/*', offers)).toBe('srt');
    expect(negotiate('application/json;q=0, */*', offers)).toBe('txt');
  });

  it('accepts none when only other types are named or every match has q=0', () => {
    expect(negotiate('image/png', offers)).toBeUndefined();
    expect(negotiate('image/*, application/xml', offers)).toBeUndefined();
    expect(negotiate('*/*;q=0', offers)).toBeUndefined();
  });

  it('ignores malformed ranges, and a header with none well-formed counts as absent', () => {
    expect(negotiate('garbage', offers)).toBe('json');
    expect(negotiate('text/vtt;q=2, text/plain', offers)).toBe('txt');
    expect(negotiate('*/vtt, text/vtt', offers)).toBe('vtt');
    expect(negotiate(', ,text/vtt', offers)).toBe('vtt');
  });
});
